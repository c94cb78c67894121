package dev.specwatch.schedule;

import dev.specwatch.model.Engine;
import dev.specwatch.model.LabelMatcher;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Sample;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.PromQl;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SglangProfile;
import dev.specwatch.signals.TrtllmProfile;
import dev.specwatch.signals.VllmProfile;
import dev.specwatch.yaml.MapReader;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Why a recipe reads {@code no_data}, from what Prometheus does have: which of its match labels
 * selects no series of the engine's generation-token counter (with the closest value that exists:
 * "did you mean"), whether the series are another engine's, or whether the model is served without
 * speculative decoding. A typo in {@code model_name} otherwise passes {@code validate} and {@code
 * check} exits 0 with no_data, and nobody is ever paged.
 */
public final class NoDataHints {
  /** How a hint begins when Prometheus has none of the engine's series: often a first scrape. */
  public static final String NOTHING_SCRAPED = "Prometheus has no ";

  /** The engine's generation-token counter: what every served model exports. */
  public static final Map<Engine, String> SERVED = EngineProfile.SERVED;

  /** A series every speculative server of the engine exports. */
  private static final Map<Engine, String> SPECULATIVE =
      Map.of(
          Engine.VLLM, VllmProfile.DRAFT_TOKENS,
          Engine.SGLANG, SglangProfile.ACCEPT_LENGTH,
          Engine.TRTLLM, TrtllmProfile.DRAFT_TOKENS);

  private final PrometheusClient client;
  private final Optional<Instant> at;
  private final Map<String, Set<String>> valuesCache = new HashMap<>();

  private NoDataHints(PrometheusClient client, Optional<Instant> at) {
    this.client = client;
    this.at = at;
  }

  /** A hint per recipe in state no_data; none where the queries fail (check reports those). */
  public static Map<String, String> of(
      List<Policy> policies, Evaluation evaluation, PrometheusClient client, Optional<Instant> at) {
    NoDataHints hints = new NoDataHints(client, at);
    Map<String, Policy> byRecipe = new HashMap<>();
    policies.forEach(p -> byRecipe.put(p.recipe(), p));
    Map<String, String> out = new LinkedHashMap<>();
    for (RecipeSnapshot r : evaluation.recipes()) {
      Policy p = byRecipe.get(r.recipe());
      if (r.state() != RecipeState.NO_DATA || p == null) {
        continue;
      }
      try {
        out.put(r.recipe(), hints.hint(p));
      } catch (PrometheusException e) {
        // The evaluation's own queries succeeded; a failing hint query only loses the hint.
        out.put(r.recipe(), "no hint: " + e.getMessage());
      }
    }
    return out;
  }

  private String hint(Policy p) throws PrometheusException {
    String served = SERVED.get(p.engine());
    String selector = PromQl.selector(p.matchers());
    boolean servedHere = count(served + selector) > 0;
    if (servedHere && p.numSpeculativeTokens() == 0) {
      return "the match finds "
          + served
          + ", but the window does not hold two scrapes of it yet (the server, Prometheus or"
          + " specwatch just started, or the scrape interval is longer than the window)";
    }
    if (servedHere && count(SPECULATIVE.get(p.engine()) + selector) > 0) {
      return "the speculative-decoding series exist, but the window does not hold two scrapes of"
          + " them yet (the server, Prometheus or specwatch just started, or the scrape interval"
          + " is longer than the window)";
    }
    if (servedHere) {
      return "the match finds "
          + served
          + " but no speculative-decoding series: is speculative decoding on for this model?";
    }
    for (Map.Entry<Engine, String> other : SERVED.entrySet()) {
      if (other.getKey() != p.engine() && count(other.getValue() + selector) > 0) {
        return "the match finds "
            + other.getValue()
            + ": set engine: "
            + other.getKey().key()
            + " in the policy";
      }
    }
    if (count(served) == 0) {
      return NOTHING_SCRAPED
          + served
          + " series at all: is the "
          + p.engine().key()
          + " server scraped yet (its job, target and metrics_path)?";
    }
    for (LabelMatcher m : p.matchers()) {
      if (count(served + PromQl.selector(List.of(m))) > 0) {
        continue;
      }
      String says = m.name() + m.op().symbol() + PromQl.quote(m.value());
      Set<String> values = values(served, m.name());
      Optional<String> closest =
          m.op() == LabelMatcher.Op.EQUAL ? MapReader.closest(m.value(), values) : Optional.empty();
      if (closest.isPresent()) {
        return says
            + " selects no series of "
            + served
            + " (did you mean "
            + m.name()
            + "="
            + PromQl.quote(closest.get())
            + "?)";
      }
      return says
          + " selects no series of "
          + served
          + (values.isEmpty()
              ? "; no series has label " + m.name()
              : "; it has " + m.name() + " " + String.join(", ", first(values, 5)));
    }
    return "each match label finds "
        + served
        + " series, but no series has them all: check the combination";
  }

  private double count(String selector) throws PrometheusException {
    List<Sample> s = client.query("count(" + selector + ")", at).samples();
    return s.isEmpty() ? 0 : s.get(0).value();
  }

  private Set<String> values(String metric, String label) throws PrometheusException {
    String key = metric + "\u0000" + label;
    Set<String> cached = valuesCache.get(key);
    if (cached != null) {
      return cached;
    }
    Set<String> values = new LinkedHashSet<>();
    for (Sample s :
        client
            .query("count by (" + PromQl.labelList(List.of(label)) + ") (" + metric + ")", at)
            .samples()) {
      String v = s.labels().get(label);
      if (v != null) {
        values.add(v);
      }
    }
    valuesCache.put(key, values);
    return values;
  }

  private static List<String> first(Set<String> values, int n) {
    return values.stream().limit(n).map(PromQl::quote).toList();
  }
}
