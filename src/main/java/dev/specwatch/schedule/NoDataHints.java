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
import dev.specwatch.yaml.MapReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

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

  /** The series that say a model speculates on {@code engine} (its profile's). */
  private static Set<String> speculative(Engine engine) {
    return EngineProfile.of(engine).speculativeSeries();
  }

  /** What the datasource has of the engines' marker series, by metric name. */
  private final Map<String, List<Map<String, String>>> byName = new HashMap<>();

  /**
   * Those series by metric and label name, then by the label's value (in the order first seen),
   * built on first use: thousands of recipes without data against thousands of series cost one
   * lookup each, not a scan (make scale-bench, 2026-12-03: a scan per recipe and label took 10 s of
   * CPU per evaluation at 10,000 recipes).
   */
  private final Map<String, Map<String, List<Map<String, String>>>> byValue = new HashMap<>();

  private NoDataHints(List<Map<String, String>> series) {
    for (Map<String, String> labels : series) {
      byName
          .computeIfAbsent(labels.getOrDefault("__name__", ""), k -> new ArrayList<>())
          .add(labels);
    }
  }

  /**
   * A hint per recipe in state no_data; none where the query fails (check reports those). One query
   * for all of them, whatever their number: what the datasource has of the engines' marker series,
   * by the labels the recipes match on; each hint is then worked out here.
   */
  public static Map<String, String> of(
      List<Policy> policies, Evaluation evaluation, PrometheusClient client, Optional<Instant> at) {
    Map<String, Policy> byRecipe = new HashMap<>();
    policies.forEach(p -> byRecipe.put(p.recipe(), p));
    List<Policy> lacking = new ArrayList<>();
    for (RecipeSnapshot r : evaluation.recipes()) {
      Policy p = byRecipe.get(r.recipe());
      if (r.state() == RecipeState.NO_DATA && p != null) {
        lacking.add(p);
      }
    }
    Map<String, String> out = new LinkedHashMap<>();
    if (lacking.isEmpty()) {
      return out;
    }
    List<Map<String, String>> series;
    try {
      series = series(lacking, client, at);
    } catch (PrometheusException e) {
      // The evaluation's own queries succeeded; a failing hint query only loses the hints.
      lacking.forEach(p -> out.put(p.recipe(), "no hint: " + e.getMessage()));
      return out;
    }
    return hints(lacking, series);
  }

  /** The hint of each recipe without data, from what the datasource lists (one label set each). */
  static Map<String, String> hints(List<Policy> lacking, List<Map<String, String>> series) {
    NoDataHints hints = new NoDataHints(series);
    Map<String, String> out = new LinkedHashMap<>();
    lacking.forEach(p -> out.put(p.recipe(), hints.hint(p)));
    return out;
  }

  /** {@code count by (__name__, <every label the recipes match on>) ({__name__=~"<markers>"})}. */
  private static List<Map<String, String>> series(
      List<Policy> lacking, PrometheusClient client, Optional<Instant> at)
      throws PrometheusException {
    Set<String> labels = new TreeSet<>();
    lacking.forEach(p -> p.matchers().forEach(m -> labels.add(m.name())));
    Set<String> names = new TreeSet<>(SERVED.values());
    for (Engine engine : Engine.values()) {
      names.addAll(speculative(engine));
      names.addAll(EngineProfile.of(engine).olderReleaseMarkers().keySet());
    }
    List<String> by = new ArrayList<>(List.of("__name__"));
    by.addAll(labels);
    String query =
        "count by ("
            + String.join(", ", by)
            + ") ({__name__=~"
            + PromQl.quote(String.join("|", names.stream().map(NoDataHints::literal).toList()))
            + "})";
    List<Map<String, String>> out = new ArrayList<>();
    for (Sample s : client.query(query, at).samples()) {
      out.add(s.labels());
    }
    return out;
  }

  /** A metric name as a regular expression matching it alone (its colons and dots literal). */
  private static String literal(String metric) {
    return metric.replace(".", "\\.");
  }

  private String hint(Policy p) {
    String served = SERVED.get(p.engine());
    List<LabelMatcher> all = p.matchers();
    boolean servedHere = has(served, all);
    if (servedHere && p.numSpeculativeTokens() == 0) {
      return "the match finds "
          + served
          + ", but the window does not hold two scrapes of it yet (the server, Prometheus or"
          + " specwatch just started, or the scrape interval is longer than the window)";
    }
    if (servedHere && speculative(p.engine()).stream().anyMatch(metric -> has(metric, all))) {
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
      if (other.getKey() != p.engine() && has(other.getValue(), all)) {
        return "the match finds "
            + other.getValue()
            + ": set engine: "
            + other.getKey().key()
            + " in the policy";
      }
    }
    for (Map.Entry<String, String> older :
        new java.util.TreeMap<>(EngineProfile.of(p.engine()).olderReleaseMarkers()).entrySet()) {
      if (has(older.getKey(), all)) {
        return "the match finds " + older.getKey() + " but no " + served + ": " + older.getValue();
      }
    }
    if (!has(served, List.of())) {
      return NOTHING_SCRAPED
          + served
          + " series at all: is the "
          + p.engine().key()
          + " server scraped yet (its job, target and metrics_path)?";
    }
    for (LabelMatcher m : all) {
      if (has(served, List.of(m))) {
        continue;
      }
      String says = m.name() + m.op().symbol() + PromQl.quote(m.value());
      Set<String> values = values(served, m.name());
      Optional<Map.Entry<String, String>> placeholder =
          EngineProfile.of(p.engine()).placeholderModelName();
      if (m.name().equals("model_name")
          && placeholder.isPresent()
          && values.contains(placeholder.get().getKey())) {
        return says
            + " selects no series of "
            + served
            + ": "
            + placeholder.get().getValue()
            + ", whatever model it serves; match on its job instead (drop model_name)";
      }
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

  /** Whether the datasource has a series of {@code metric} that every matcher selects. */
  private boolean has(String metric, List<LabelMatcher> matchers) {
    // The fewest series any equality matcher leaves (job="vllm" leaves them all; the model's own
    // name one or two): the rest are tested one by one.
    List<Map<String, String>> candidates = byName.getOrDefault(metric, List.of());
    for (LabelMatcher m : matchers) {
      if (m.op() == LabelMatcher.Op.EQUAL && !m.value().isEmpty()) {
        List<Map<String, String>> these =
            index(metric, m.name()).getOrDefault(m.value(), List.of());
        if (these.size() < candidates.size()) {
          candidates = these;
        }
      }
    }
    return candidates.stream()
        .anyMatch(labels -> matchers.stream().allMatch(m -> selects(m, labels)));
  }

  /** The series of {@code metric} by their value of {@code label} (those without it left out). */
  private Map<String, List<Map<String, String>>> index(String metric, String label) {
    return byValue.computeIfAbsent(
        metric + "\0" + label,
        key -> {
          Map<String, List<Map<String, String>>> index = new LinkedHashMap<>();
          for (Map<String, String> labels : byName.getOrDefault(metric, List.of())) {
            String v = labels.get(label);
            if (v != null) {
              index.computeIfAbsent(v, x -> new ArrayList<>()).add(labels);
            }
          }
          return index;
        });
  }

  /** A matcher as Prometheus applies it: a missing label is the empty string, regexes anchored. */
  boolean selects(LabelMatcher m, Map<String, String> labels) {
    String value = labels.getOrDefault(m.name(), "");
    return switch (m.op()) {
      case EQUAL -> value.equals(m.value());
      case NOT_EQUAL -> !value.equals(m.value());
      case REGEX -> anchored(m.value()).matcher(value).matches();
      case NOT_REGEX -> !anchored(m.value()).matcher(value).matches();
    };
  }

  /** Compiled once per hint run, not once per series tested. */
  private final Map<String, java.util.regex.Pattern> patterns = new HashMap<>();

  private java.util.regex.Pattern anchored(String regex) {
    return patterns.computeIfAbsent(regex, r -> java.util.regex.Pattern.compile("^(?:" + r + ")$"));
  }

  /** The values {@code label} takes on the series of {@code metric}, in the order first seen. */
  private Set<String> values(String metric, String label) {
    return index(metric, label).keySet();
  }

  private static List<String> first(Set<String> values, int n) {
    return values.stream().limit(n).map(PromQl::quote).toList();
  }
}
