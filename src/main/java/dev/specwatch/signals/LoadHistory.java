package dev.specwatch.signals;

import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.model.Engine;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Series;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Generated tokens per second and mean running requests of deployments, step by step over a range
 * of Prometheus history: what {@link SpeedupByLoad} measures from. One range query per signal for
 * every recipe of one engine and set of match labels, not one per recipe.
 */
public final class LoadHistory {
  private LoadHistory() {}

  /**
   * The step of every speed-up measurement (the recipe page, {@code advise}, the digest and the
   * {@code speedup} rule): the bucket of a step is its mean running requests over the step, so a
   * longer step averages loads together and moves the figures. A week is 10,080 steps, within
   * Prometheus' 11,000 points a series.
   */
  public static final Duration STEP = Duration.ofMinutes(1);

  /**
   * {@code t} rounded down to a whole multiple of {@code step} since the epoch: the steps of a
   * range query start at its {@code from}, so a window asked for a few seconds apart (a page view
   * and an {@code advise} run) reads the same samples.
   */
  public static Instant align(Instant t, Duration step) {
    long ms = Math.max(1, step.toMillis());
    return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), ms) * ms);
  }

  /** The steps of each recipe, by name (in time order; empty when Prometheus holds none). */
  public static Map<String, List<SpeedupByLoad.Step>> fetch(
      PrometheusApi api, List<Policy> recipes, Instant from, Instant to, Duration step)
      throws PrometheusException {
    Map<String, List<SpeedupByLoad.Step>> out = new HashMap<>();
    fetchTimed(api, recipes, from, to, step)
        .forEach((recipe, steps) -> out.put(recipe, new ArrayList<>(steps.values())));
    return out;
  }

  /** As {@link #fetch}, each step keyed by its time (Unix seconds): for slicing a long history. */
  public static Map<String, NavigableMap<Double, SpeedupByLoad.Step>> fetchTimed(
      PrometheusApi api, List<Policy> recipes, Instant from, Instant to, Duration step)
      throws PrometheusException {
    from = align(from, step);
    to = align(to, step);
    Map<String, NavigableMap<Double, SpeedupByLoad.Step>> out = new HashMap<>();
    Map<List<Object>, List<Policy>> groups = new LinkedHashMap<>();
    for (Policy p : recipes) {
      groups
          .computeIfAbsent(List.of(p.engine(), p.matchLabelNames()), g -> new ArrayList<>())
          .add(p);
    }
    for (List<Policy> group : groups.values()) {
      Engine engine = group.get(0).engine();
      List<String> labels = group.get(0).matchLabelNames();
      EngineProfile profile = EngineProfile.of(engine);
      QueryScope scope =
          new QueryScope(labels, Evaluator.selector(labels, group), step, Duration.ZERO);
      Map<List<String>, Map<Double, Double>> tokens =
          series(
              api,
              profile.query(Signal.GENERATION_TOKENS_PER_SECOND, scope),
              labels,
              from,
              to,
              step);
      Map<List<String>, Map<Double, Double>> running =
          series(api, profile.query(Signal.RUNNING_REQUESTS, scope), labels, from, to, step);
      for (Policy p : group) {
        List<String> key = List.copyOf(p.match().values());
        out.put(
            p.recipe(),
            steps(tokens.getOrDefault(key, Map.of()), running.getOrDefault(key, Map.of()), step));
      }
    }
    return out;
  }

  /**
   * The speed-up by load of {@code recipe} against {@code baseline} from {@code from} to {@code to}
   * (docs/SPEEDUP.md): {@link #fetch} for both, then {@link SpeedupByLoad#measure}.
   */
  public static SpeedupByLoad.Result speedup(
      PrometheusApi api, Policy recipe, Policy baseline, Instant from, Instant to, Duration step)
      throws PrometheusException {
    Map<String, List<SpeedupByLoad.Step>> steps =
        fetch(api, List.of(recipe, baseline), from, to, step);
    return SpeedupByLoad.measure(
        steps.getOrDefault(recipe.recipe(), List.of()),
        steps.getOrDefault(baseline.recipe(), List.of()),
        step.toMillis() / 1000.0);
  }

  /** The two signals joined on their timestamps; a missing step between two marks a gap. */
  static NavigableMap<Double, SpeedupByLoad.Step> steps(
      Map<Double, Double> tokens, Map<Double, Double> running, Duration step) {
    NavigableMap<Double, SpeedupByLoad.Step> out = new TreeMap<>();
    double seconds = step.toMillis() / 1000.0;
    Double previous = null;
    for (Map.Entry<Double, Double> t : new TreeMap<>(tokens).entrySet()) {
      Double r = running.get(t.getKey());
      if (r == null) {
        continue;
      }
      boolean gap = previous != null && t.getKey() - previous > seconds * 1.5;
      out.put(t.getKey(), new SpeedupByLoad.Step(t.getValue(), r, gap));
      previous = t.getKey();
    }
    return out;
  }

  private static Map<List<String>, Map<Double, Double>> series(
      PrometheusApi api,
      String promql,
      List<String> labels,
      Instant from,
      Instant to,
      Duration step)
      throws PrometheusException {
    Map<List<String>, Map<Double, Double>> out = new HashMap<>();
    for (Series s : api.queryRange(promql, from, to, step).series()) {
      List<String> key = new ArrayList<>();
      for (String label : labels) {
        key.add(s.labels().get(label));
      }
      Map<Double, Double> points = out.computeIfAbsent(key, k -> new HashMap<>());
      for (Series.Point p : s.points()) {
        points.put(p.time(), p.value());
      }
    }
    return out;
  }

  /**
   * A recipe's acceptance by draft position in each bucket of load ({@link
   * SpeedupByLoad#bucketOf}), drafts-weighted over the steps of the bucket: bucket index to one
   * value per position (null where no drafts reached it). Empty for an engine without per-position
   * counters.
   */
  public static Map<Integer, List<Double>> positionsByLoad(
      PrometheusApi api, Policy p, Instant from, Instant to, Duration step)
      throws PrometheusException {
    EngineProfile profile = EngineProfile.of(p.engine());
    int k = p.numSpeculativeTokens();
    if (k < 1 || !profile.supported().contains(Signal.POSITION_ACCEPTANCE)) {
      return Map.of();
    }
    from = align(from, step);
    to = align(to, step);
    List<String> labels = p.matchLabelNames();
    QueryScope scope =
        new QueryScope(labels, Evaluator.selector(labels, List.of(p)), step, Duration.ZERO)
            .withK(k);
    List<String> key = List.copyOf(p.match().values());
    Map<Double, Double> running =
        series(api, profile.query(Signal.RUNNING_REQUESTS, scope), labels, from, to, step)
            .getOrDefault(key, Map.of());
    Map<Double, Double> drafts =
        series(api, profile.query(Signal.DRAFTS_IN_WINDOW, scope), labels, from, to, step)
            .getOrDefault(key, Map.of());
    List<String> withPosition = new ArrayList<>(labels);
    withPosition.add("position");
    Map<List<String>, Map<Double, Double>> byPosition =
        series(api, profile.query(Signal.POSITION_ACCEPTANCE, scope), withPosition, from, to, step);
    Map<Integer, double[]> sums = new TreeMap<>();
    for (Map.Entry<Double, Double> d : drafts.entrySet()) {
      Double r = running.get(d.getKey());
      if (r == null || !Double.isFinite(d.getValue()) || d.getValue() <= 0) {
        continue;
      }
      int bucket = SpeedupByLoad.bucketOf(r);
      if (bucket < 0) {
        continue;
      }
      double[] acc = sums.computeIfAbsent(bucket, b -> new double[2 * k]);
      for (int i = 0; i < k; i++) {
        List<String> pk = new ArrayList<>(key);
        pk.add(Integer.toString(i));
        Double a = byPosition.getOrDefault(pk, Map.of()).get(d.getKey());
        if (a != null && Double.isFinite(a)) {
          acc[i] += a * d.getValue();
          acc[k + i] += d.getValue();
        }
      }
    }
    Map<Integer, List<Double>> out = new TreeMap<>();
    sums.forEach(
        (bucket, acc) -> {
          List<Double> values = new ArrayList<>();
          for (int i = 0; i < k; i++) {
            values.add(acc[k + i] > 0 ? acc[i] / acc[k + i] : null);
          }
          out.put(bucket, values);
        });
    return out;
  }
}
