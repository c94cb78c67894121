package dev.specwatch.signals;

import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The measured speed-up at the load a recipe runs, for {@code thresholds.speedup}
 * (docs/SPEEDUP.md): over the trailing {@code over}, against the recipe's {@code speedup_baseline},
 * in the bucket of the recipe's mean running requests over the last {@link #LATELY}. Two range
 * queries a recipe, recomputed at most every {@link #REFRESH}: the figure stands on hours of load
 * and moves slowly.
 */
public final class SpeedupReadings {
  private static final Logger logger = LoggerFactory.getLogger(SpeedupReadings.class);

  static final Duration STEP = Duration.ofMinutes(1);
  static final Duration REFRESH = Duration.ofMinutes(5);

  /** The load the recipe "has been running lately". */
  static final Duration LATELY = Duration.ofMinutes(15);

  private record Reading(Instant at, Double speedup) {}

  private final PrometheusApi api;
  private final Map<String, Policy> byName = new HashMap<>();
  private final Map<String, Reading> cache = new ConcurrentHashMap<>();

  /**
   * @param all every recipe a {@code speedup_baseline} may name (speculative ones and baselines)
   */
  public SpeedupReadings(PrometheusApi api, List<Policy> all) {
    this.api = api;
    all.forEach(p -> byName.put(p.recipe(), p));
  }

  /** The speed-up of every recipe of {@code policies} with a speed-up threshold; null if none. */
  Map<String, Double> read(List<Policy> policies, Instant time) {
    Map<String, Double> out = new HashMap<>();
    for (Policy p : policies) {
      if (p.thresholds().speedup().isEmpty() || p.speedupBaseline().isEmpty()) {
        continue;
      }
      Reading r = cache.get(p.recipe());
      if (r == null || !r.at().plus(REFRESH).isAfter(time) || r.at().isAfter(time)) {
        r = new Reading(time, measure(p, time));
        cache.put(p.recipe(), r);
      }
      out.put(p.recipe(), r.speedup());
    }
    return out;
  }

  private Double measure(Policy p, Instant time) {
    Policy base = byName.get(p.speedupBaseline().get());
    if (base == null) {
      return null;
    }
    Duration over = p.thresholds().speedup().get().over();
    try {
      Map<String, List<SpeedupByLoad.Step>> steps =
          LoadHistory.fetch(api, List.of(p, base), time.minus(over), time, STEP);
      List<SpeedupByLoad.Step> spec = steps.getOrDefault(p.recipe(), List.of());
      SpeedupByLoad.Result result =
          SpeedupByLoad.measure(spec, steps.getOrDefault(base.recipe(), List.of()), 60.0);
      int lately = (int) LATELY.dividedBy(STEP);
      double sum = 0;
      int n = 0;
      for (int i = Math.max(0, spec.size() - lately); i < spec.size(); i++) {
        sum += spec.get(i).running();
        n++;
      }
      if (n == 0) {
        return null;
      }
      int bucket = SpeedupByLoad.bucketOf(sum / n);
      return result.byLoad().stream()
          .filter(b -> SpeedupByLoad.bucketOf(b.runningMin()) == bucket)
          .findFirst()
          .map(SpeedupByLoad.Bucket::speedup)
          .orElse(null);
    } catch (PrometheusException e) {
      logger.debug("speed-up of {} not measured: {}", p.recipe(), e.getMessage());
      return null;
    }
  }
}
