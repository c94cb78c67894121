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
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The measured speed-up at the load a recipe runs, for {@code thresholds.speedup}
 * (docs/SPEEDUP.md): over the trailing {@code over}, against the recipe's {@code speedup_baseline},
 * in the bucket of the recipe's mean running requests over the last {@link #LATELY}. Two range
 * queries a recipe, recomputed at most every {@link #REFRESH}: the figure stands on hours of load
 * and moves slowly. Where the engine exports vLLM's per-request histograms, eight instant queries
 * more compare the two sides' prompt and output lengths over the same span ({@link
 * FinishedRequests#mixDiffers}): a reading whose traffic differs says it may be confounded.
 */
public final class SpeedupReadings {
  private static final Logger logger = LoggerFactory.getLogger(SpeedupReadings.class);

  static final Duration STEP = LoadHistory.STEP;
  static final Duration REFRESH = Duration.ofMinutes(5);

  /** The load the recipe "has been running lately". */
  static final Duration LATELY = Duration.ofMinutes(15);

  /**
   * @param verdict "breaks even (1.02× per request at 16–31 running requests, 95 % 0.97–1.07)": the
   *     bucket read, in the words of every screen; null without a figure
   */
  private record Reading(Instant at, Double speedup, String verdict, String confounded) {}

  /**
   * The bucket's verdict with its figure: "breaks even (1.02× per request at 16–31 running
   * requests, 95 % 0.97–1.07)".
   */
  private static String verdict(SpeedupByLoad.Bucket b) {
    String interval =
        b.low() == null || b.high() == null
            ? ""
            : String.format(java.util.Locale.ROOT, ", 95 %% %.2f–%.2f", b.low(), b.high());
    return b.verdict().replace('_', ' ')
        + " ("
        + SpeedupByLoad.headline(b.speedup(), b.runningMin(), b.runningMax())
        + interval
        + ")";
  }

  /** Where the steps come from: range queries now, or a history fetched once for a replay. */
  interface History {
    Map<String, List<SpeedupByLoad.Step>> steps(List<Policy> recipes, Instant from, Instant to)
        throws PrometheusException;
  }

  private final History history;

  /** Where the two sides' finished requests are compared; null: not compared (tests). */
  private final PrometheusApi api;

  private final int preloadQueries;
  private final Map<String, Policy> byName = new HashMap<>();
  private final Map<String, Reading> cache = new ConcurrentHashMap<>();

  /**
   * @param all every recipe a {@code speedup_baseline} may name (speculative ones and baselines)
   */
  public SpeedupReadings(PrometheusApi api, List<Policy> all) {
    this((recipes, from, to) -> LoadHistory.fetch(api, recipes, from, to, STEP), api, all, 0);
  }

  /** Readings from {@code history} (for tests of what is fetched when). */
  SpeedupReadings(History history, List<Policy> all) {
    this(history, null, all, 0);
  }

  private SpeedupReadings(
      History history, PrometheusApi api, List<Policy> all, int preloadQueries) {
    this.history = history;
    this.api = api;
    this.preloadQueries = preloadQueries;
    all.forEach(p -> byName.put(p.recipe(), p));
  }

  /**
   * For a replay from {@code from} to {@code to}: the history of every recipe with a speed-up
   * threshold and of its baseline is fetched once (two range queries a group of recipes, from the
   * longest {@code over} before {@code from}), and each replayed reading slices it, so the rule
   * reads at each past step what it would have read live.
   */
  public static SpeedupReadings replaying(
      PrometheusApi api, List<Policy> all, Instant from, Instant to) throws PrometheusException {
    Map<String, Policy> byName = new HashMap<>();
    all.forEach(p -> byName.put(p.recipe(), p));
    java.util.Set<Policy> needed = new java.util.LinkedHashSet<>();
    Duration longest = Duration.ZERO;
    for (Policy p : all) {
      if (p.thresholds().speedup().isPresent() && p.speedupBaseline().isPresent()) {
        Policy base = byName.get(p.speedupBaseline().get());
        if (base != null) {
          needed.add(p);
          needed.add(base);
          Duration over = p.thresholds().speedup().get().over();
          longest = over.compareTo(longest) > 0 ? over : longest;
        }
      }
    }
    Map<String, java.util.NavigableMap<Double, SpeedupByLoad.Step>> fetched =
        needed.isEmpty()
            ? Map.of()
            : LoadHistory.fetchTimed(api, List.copyOf(needed), from.minus(longest), to, STEP);
    return new SpeedupReadings(
        (recipes, start, end) -> {
          Map<String, List<SpeedupByLoad.Step>> out = new HashMap<>();
          for (Policy p : recipes) {
            java.util.NavigableMap<Double, SpeedupByLoad.Step> steps = fetched.get(p.recipe());
            out.put(
                p.recipe(),
                steps == null
                    ? List.of()
                    : List.copyOf(
                        steps
                            .subMap(
                                start.getEpochSecond() + 0.0,
                                true,
                                end.getEpochSecond() + 0.0,
                                true)
                            .values()));
          }
          return out;
        },
        // the traffic compared by instant queries at the replayed time, as live
        api,
        all,
        2
            * (int)
                needed.stream()
                    .map(p -> List.of(p.engine(), p.matchLabelNames()))
                    .distinct()
                    .count());
  }

  /** The range queries a replay's readings sent up front (0 for live readings). */
  public int preloadQueries() {
    return preloadQueries;
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
        r = measure(p, time);
        cache.put(p.recipe(), r);
      }
      out.put(p.recipe(), r.speedup());
    }
    return out;
  }

  /**
   * Why the last reading of {@code recipe} may be confounded ("may be confounded: the two sides'
   * requests differ (…)"), or empty: where it has none, its traffic does not differ, or the engine
   * exports no per-request lengths.
   */
  Optional<String> confounded(String recipe) {
    Reading r = cache.get(recipe);
    return r == null || r.speedup() == null
        ? Optional.empty()
        : Optional.ofNullable(r.confounded());
  }

  /**
   * The last reading of {@code recipe} as its bucket's verdict ("breaks even (1.02× per request at
   * 16–31 running requests, 95 % 0.97–1.07)"), or empty without one.
   */
  Optional<String> verdict(String recipe) {
    Reading r = cache.get(recipe);
    return r == null ? Optional.empty() : Optional.ofNullable(r.verdict());
  }

  private Reading measure(Policy p, Instant time) {
    SpeedupByLoad.Bucket bucket = bucket(p, time);
    if (bucket == null || bucket.speedup() == null) {
      return new Reading(time, null, null, null);
    }
    Policy base = byName.get(p.speedupBaseline().get());
    Duration over = p.thresholds().speedup().get().over();
    String confounded = null;
    try {
      confounded =
          api == null ? null : FinishedRequests.confounded(api, p, base, time, over).orElse(null);
    } catch (PrometheusException e) {
      logger.debug("traffic of {} not compared: {}", p.recipe(), e.getMessage());
    }
    return new Reading(time, bucket.speedup(), verdict(bucket), confounded);
  }

  /** The bucket of the load {@code p} ran lately, measured over its {@code over}; or null. */
  private SpeedupByLoad.Bucket bucket(Policy p, Instant time) {
    Policy base = byName.get(p.speedupBaseline().get());
    if (base == null) {
      return null;
    }
    Duration over = p.thresholds().speedup().get().over();
    try {
      Map<String, List<SpeedupByLoad.Step>> steps =
          history.steps(List.of(p, base), time.minus(over), time);
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
          .orElse(null);
    } catch (PrometheusException e) {
      logger.debug("speed-up of {} not measured: {}", p.recipe(), e.getMessage());
      return null;
    }
  }
}
