package dev.specwatch.signals;

import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.Sample;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Numbers no engine can produce: an infinite or NaN count or rate, a negative one, more tokens
 * accepted than drafted. Before, NaN and +Inf read as {@code no_data}, a negative count as {@code
 * idle} and an acceptance of 900 % as {@code ok}: a broken exporter muted alerting without a word.
 * Now the recipe is in {@code error} with the reason (so its alerts freeze, as on a datasource
 * failure, and the datasource self-alert fires if it lasts), and the reason is logged once per
 * recipe until it changes.
 */
final class BadData {
  private static final Logger logger = LoggerFactory.getLogger(BadData.class);

  /** A small slack over 1 (and k + 1) for rounding in rates over a window. */
  private static final double SLACK = 1e-6;

  /** The last reason logged per recipe: a line when it starts or changes, not every evaluation. */
  private static final Map<String, String> LOGGED = new ConcurrentHashMap<>();

  private BadData() {}

  /** Why the recipe's numbers are impossible, or empty. Logs a new reason once. */
  static Optional<String> check(
      Policy p, Map<QueryKey, Map<Policy, List<Sample>>> results, SignalValues v) {
    Optional<String> why = reason(p, results, v);
    if (why.isPresent()) {
      if (!why.get().equals(LOGGED.put(p.recipe(), why.get()))) {
        logger.warn("{}: {}", p.recipe(), why.get());
      }
    } else {
      LOGGED.remove(p.recipe());
    }
    return why;
  }

  private static Optional<String> reason(
      Policy p, Map<QueryKey, Map<Policy, List<Sample>>> results, SignalValues v) {
    // Counts and rates: never infinite, NaN or negative (a ratio may be NaN: 0 / 0 when idle).
    for (Signal s :
        List.of(
            Signal.DRAFTS_IN_WINDOW,
            Signal.DRAFT_TOKENS_PER_SECOND,
            Signal.ACCEPTED_TOKENS_PER_SECOND,
            Signal.GENERATION_TOKENS_PER_SECOND,
            Signal.RUNNING_REQUESTS)) {
      for (Sample sample :
          results.getOrDefault(new QueryKey(s, null), Map.of()).getOrDefault(p, List.of())) {
        double x = sample.value();
        if (Double.isNaN(x) || Double.isInfinite(x) || x < 0) {
          return Optional.of(impossible(words(s) + " " + number(x)));
        }
      }
    }
    for (Signal s : List.of(Signal.ACCEPTANCE_RATE, Signal.MEAN_ACCEPTED_LENGTH)) {
      for (Sample sample :
          results.getOrDefault(new QueryKey(s, null), Map.of()).getOrDefault(p, List.of())) {
        if (Double.isInfinite(sample.value())) {
          return Optional.of(impossible(words(s) + " " + number(sample.value())));
        }
      }
    }
    Double a = v.acceptanceRate();
    if (a != null && a > 1 + SLACK && EngineProfile.of(p.engine()).acceptanceFromK()) {
      // SGLang's acceptance is derived with the policy's k, (L - 1) / k: a k below the server's.
      return Optional.of(
          String.format(
              Locale.ROOT,
              "acceptance rate %.3f above 1: num_speculative_tokens (%d) is below the server's k;"
                  + " set it to the server's (docs/ENGINES.md). The recipe's alerts are frozen",
              a,
              p.numSpeculativeTokens()));
    }
    if (a != null && (a < -SLACK || a > 1 + SLACK)) {
      return Optional.of(
          impossible(
              String.format(
                  Locale.ROOT,
                  "acceptance rate %.3f (%s)",
                  a,
                  a > 1 ? "more tokens accepted than drafted" : "below 0")));
    }
    for (int i = 0; i < v.positionAcceptance().size(); i++) {
      Double x = v.positionAcceptance().get(i);
      if (x != null && (x < -SLACK || x > 1 + SLACK)) {
        return Optional.of(
            impossible(String.format(Locale.ROOT, "acceptance at position %d %.3f", i, x)));
      }
    }
    return Optional.empty();
  }

  private static String impossible(String what) {
    return "impossible numbers from the datasource: "
        + what
        + "; the exporter or the recording rules are broken (the recipe's alerts are frozen)";
  }

  private static String words(Signal s) {
    return s.key().replace('_', ' ');
  }

  private static String number(double x) {
    return Double.isNaN(x) ? "NaN" : Double.isInfinite(x) ? (x > 0 ? "+Inf" : "-Inf") : format(x);
  }

  private static String format(double x) {
    return String.format(Locale.ROOT, "%.3f", x);
  }
}
