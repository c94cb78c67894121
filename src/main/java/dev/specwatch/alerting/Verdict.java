package dev.specwatch.alerting;

import dev.specwatch.model.Durations;
import dev.specwatch.model.RuleName;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SignalForm;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What one rule says about one recipe in one evaluation.
 *
 * @param value the measured value (null when there is none)
 * @param threshold the level it is compared with
 * @param text the reason for people, e.g. "acceptance_rate 0.410 below 0.450" ({@link #reason}),
 *     made when asked: most verdicts are a healthy recipe's clear, whose reason is read only when
 *     an alert resolves, and formatting it on every step was a tenth of what an evaluation
 *     allocated at 10,000 recipes (docs/PERFORMANCE.md, 2026-12-06)
 * @param without for an UNKNOWN verdict given because the snapshot had no evidence: its state
 *     (idle, low traffic, no data, error); else null
 */
public record Verdict(
    Kind kind, Double value, double threshold, Supplier<String> text, RecipeState without) {
  public enum Kind {
    BREACHED,
    /** Not breached and past the clear level: a firing alert may resolve. */
    CLEAR,
    /** Not breached but not past the clear level (hysteresis): a firing alert stays. */
    HOLD,
    /** No verdict (idle, low traffic, no data, error, missing value): freeze. */
    UNKNOWN
  }

  /** For people, e.g. "acceptance_rate 0.410 below 0.450". */
  public String reason() {
    return text.get();
  }

  @Override
  public String toString() {
    return "Verdict[kind="
        + kind
        + ", value="
        + value
        + ", threshold="
        + threshold
        + ", reason="
        + reason()
        + ", without="
        + without
        + "]";
  }

  static Verdict unknown(String reason) {
    return new Verdict(Kind.UNKNOWN, null, 0, () -> reason, null);
  }

  static Verdict breached(Double value, double threshold, String reason) {
    return new Verdict(Kind.BREACHED, value, threshold, () -> reason, null);
  }

  /** Clear: the reason is {@code "recovered: " + detail} ({@link Transition#detail()}). */
  static Verdict clear(Double value, double threshold, String detail) {
    return clear(value, threshold, () -> detail);
  }

  /** Clear, with the detail made only when the reason is read. */
  static Verdict clear(Double value, double threshold, Supplier<String> detail) {
    return new Verdict(
        Kind.CLEAR, value, threshold, () -> Transition.RECOVERED + detail.get(), null);
  }

  static Verdict hold(Double value, double threshold, String reason) {
    return new Verdict(Kind.HOLD, value, threshold, () -> reason, null);
  }

  /**
   * This verdict with what the servers said of k where it is not the policy's (a firing or a
   * recovery then says why the figure moved: "…; the servers' k moved between 3 and 5 in the
   * window, the policy's is 5"); as it is otherwise, and for verdicts that notify nothing.
   */
  Verdict withK(RecipeSnapshot s, int policyK) {
    if (kind != Kind.BREACHED && kind != Kind.CLEAR) {
      return this;
    }
    return s.form()
        .flatMap(f -> Optional.ofNullable(f.k()))
        .flatMap(k -> k.brief(policyK))
        .map(b -> new Verdict(kind, value, threshold, () -> reason() + "; " + b, without))
        .orElse(this);
  }

  /**
   * A speed-up verdict that fires or recovers with the bucket's own verdict and interval, and why
   * its comparison may be confounded where it may be ("speedup 1.020 below 1.100; breaks even
   * (1.02× per request at 16–31 running requests, 95 % 0.97–1.07); the speed-up may be confounded:
   * …"); as it is otherwise.
   */
  Verdict withSpeedup(RecipeSnapshot s, RuleName rule) {
    if (rule != RuleName.SPEEDUP || (kind != Kind.BREACHED && kind != Kind.CLEAR)) {
      return this;
    }
    Optional<SignalForm> form = s.form().filter(f -> f.speedupVerdict() != null);
    if (form.isEmpty()) {
      return this;
    }
    String more = "; " + form.get().speedupVerdict();
    if (form.get().speedupConfounded() != null) {
      more += "; the speed-up " + form.get().speedupConfounded();
    }
    String withMore = more;
    return new Verdict(kind, value, threshold, () -> reason() + withMore, without);
  }

  /** Whether this verdict is missing because the datasource could not be queried. */
  boolean datasourceError() {
    return without == RecipeState.ERROR;
  }

  /**
   * The no-verdict answer for a snapshot without one (idle, low traffic, no data, error); empty
   * when the snapshot can be judged.
   */
  static Optional<Verdict> withoutEvidence(RecipeSnapshot s) {
    boolean judged = s.state() == RecipeState.OK || s.state() == RecipeState.BREACH;
    return judged
        ? Optional.empty()
        : Optional.of(new Verdict(Kind.UNKNOWN, null, 0, () -> s.state().key(), s.state()));
  }

  static String fmt(double value) {
    return String.format(Locale.ROOT, "%.3f", value);
  }

  /** A long duration for messages in days when whole ({@code 30d}), else as {@link #human}. */
  static String days(Duration d) {
    return d.toSeconds() % 86_400 == 0 ? d.toDays() + "d" : human(d);
  }

  /** A duration for messages, whole seconds: {@code 1h30m}. */
  static String human(Duration d) {
    return Durations.format(Duration.ofSeconds(d.toSeconds()));
  }
}
