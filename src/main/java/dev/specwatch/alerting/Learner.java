package dev.specwatch.alerting;

import dev.specwatch.detect.NoiseFit;
import dev.specwatch.detect.StepSample;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.QueryResult;
import dev.specwatch.prometheus.Series;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.QueryScope;
import dev.specwatch.signals.Signal;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Learns each recipe's normal from its history in Prometheus ({@link NoiseFit}), for the rules that
 * decide on per-step increments: when a recipe has no model, when its model is older than {@link
 * #RELEARN} and none of its tests is in an excursion (so a drop is never learned as normal), or
 * when the evaluation step changed. At most {@link #BUDGET} recipes are tried per evaluation, four
 * range queries each and, once a change rule's model is fitted, one per length of its record of
 * short excursions ({@link ShortExcursionQueries}), so the queries per evaluation stay bounded
 * whatever the number of recipes and whether or not the datasource answers: a failed try counts
 * against the budget, the recipes tried longest ago go first (so recipes that keep failing do not
 * starve the others), and an outage ends the round (the next recipe would meet the same outage).
 */
public final class Learner {
  private static final Logger logger = LoggerFactory.getLogger(Learner.class);

  /** Models are refreshed this often while healthy. */
  static final Duration RELEARN = Duration.ofHours(6);

  /** After too little history, try again this much later. */
  static final Duration RETRY = Duration.ofHours(1);

  /** Recipes tried per evaluation at most, learned or not. */
  static final int BUDGET = 4;

  private final PrometheusApi api;

  /** Recipe → the last failure warned about, so a failure that repeats each cycle warns once. */
  private final Map<String, String> warned = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Recipe → the status last logged at info: a status that repeats (a recipe without data reads "0m
   * of active history" at each try, every hour or so) is logged at debug, not again at info.
   */
  private final Map<String, String> logged = new java.util.concurrent.ConcurrentHashMap<>();

  /** Recipe → when its last try failed; a recipe learned since is absent. */
  private final Map<String, Instant> failedAt = new java.util.concurrent.ConcurrentHashMap<>();

  public Learner(PrometheusApi api) {
    this.api = api;
  }

  /** The models to learn now and what was learned; unchanged recipes are absent. */
  public Map<String, RecipeModel> learn(
      List<Policy> policies, AlertState state, Duration step, Instant at) {
    Map<String, RecipeModel> learned = new LinkedHashMap<>();
    java.util.Set<String> configured =
        policies.stream().map(Policy::recipe).collect(java.util.stream.Collectors.toSet());
    failedAt.keySet().retainAll(configured); // recipes removed by a reload
    logged.keySet().retainAll(configured);
    Set<String> inExcursion = inExcursion(state);
    List<Policy> due =
        policies.stream()
            .filter(p -> p.usesIncrements() && due(p, state, inExcursion, step, at))
            // Stable: never-failed recipes first in config order, then the longest-failed.
            .sorted(
                java.util.Comparator.comparing(
                    (Policy p) -> failedAt.getOrDefault(p.recipe(), Instant.MIN)))
            .limit(BUDGET)
            .toList();
    for (Policy p : due) {
      Duration history =
          p.thresholds().change().map(Policy.Change::learn).orElse(Policy.Change.DEFAULT_LEARN);
      try {
        RecipeModel m = learn(p, history, step, at);
        learned.put(p.recipe(), m);
        warned.remove(p.recipe());
        failedAt.remove(p.recipe());
        if (m.status().equals(logged.put(p.recipe(), m.status()))) {
          logger.debug("{}: {}", p.recipe(), m.status());
        } else {
          logger.info("{}: {}", p.recipe(), m.status());
        }
      } catch (PrometheusException e) {
        failedAt.put(p.recipe(), at);
        if (failed(p.recipe(), e)) {
          break;
        }
      }
    }
    return learned;
  }

  /**
   * An outage (transport, 5xx) is the datasource alert's to report, so it is logged at debug; a
   * range query the datasource rejects or answers with garbage is this recipe's own problem and is
   * warned about once per distinct failure (the learner retries every cycle until it learns).
   * Whether it was an outage.
   */
  private boolean failed(String recipe, PrometheusException e) {
    boolean outage =
        e.kind() == PrometheusException.Kind.TRANSPORT
            || e.kind() == PrometheusException.Kind.SERVER;
    if (outage || e.getMessage().equals(warned.put(recipe, e.getMessage()))) {
      logger.debug("learning {} failed, will retry: {}", recipe, e.getMessage());
    } else {
      logger.warn(
          "{}: learning its normal failed, will retry each evaluation: {}", recipe, e.getMessage());
    }
    return outage;
  }

  private static boolean due(
      Policy p, AlertState state, Set<String> inExcursion, Duration step, Instant at) {
    RecipeModel current = state.models().get(p.recipe());
    if (current == null || !step.equals(current.step())) {
      return true;
    }
    Duration age = Duration.between(current.attemptedAt(), at);
    if (current.model() == null) {
      return age.compareTo(RETRY) >= 0;
    }
    return age.compareTo(RELEARN) >= 0 && !inExcursion.contains(p.recipe());
  }

  /**
   * The recipes with a test in an excursion or alarmed, in one pass over the tests. (Scanning every
   * test for each recipe cost 7 s of CPU an evaluation at 2,500 learned recipes, quadratic in the
   * recipes: docs/PERFORMANCE.md, 2026-12-06.)
   */
  private static Set<String> inExcursion(AlertState state) {
    Set<String> out = new HashSet<>();
    state
        .detectors()
        .forEach(
            (id, test) -> {
              if (test.since() != null || test.alarmed()) {
                out.add(AlertKey.parse(id).recipe());
              }
            });
    return out;
  }

  /** How often the history is sampled for step-sized increments: every 5 minutes at least. */
  static Duration sampleEvery(Duration step) {
    return step.compareTo(Duration.ofMinutes(5)) > 0 ? step : Duration.ofMinutes(5);
  }

  /**
   * The block over which the long-run wander is measured: thirty steps, at least 15 minutes, a
   * whole number of samples (so block samples fall on step samples).
   */
  static Duration block(Duration step) {
    Duration sample = sampleEvery(step);
    Duration wanted = step.multipliedBy(30);
    if (wanted.compareTo(Duration.ofMinutes(15)) < 0) {
      wanted = Duration.ofMinutes(15);
    }
    long samples = (wanted.toMillis() + sample.toMillis() - 1) / sample.toMillis();
    return sample.multipliedBy(samples);
  }

  /** Learns one recipe's model now (for {@code check}: no budget, no state). */
  public RecipeModel learnNow(Policy p, Duration step, Instant at) throws PrometheusException {
    return learn(
        p,
        p.thresholds().change().map(Policy.Change::learn).orElse(Policy.Change.DEFAULT_LEARN),
        step,
        at);
  }

  RecipeModel learn(Policy p, Duration history, Duration step, Instant at)
      throws PrometheusException {
    Duration sample = sampleEvery(step);
    Duration block = block(step);
    int blockSteps = (int) Math.max(1, Math.round((double) block.toMillis() / step.toMillis()));
    // Aligned to the block so block samples fall on step samples.
    Instant from =
        Instant.ofEpochMilli(
            Math.floorDiv(at.minus(history).toEpochMilli(), block.toMillis()) * block.toMillis());
    QueryScope stepScope = QueryScope.of(p, step);
    QueryScope blockScope = QueryScope.of(p, block);
    Map<Long, double[]> byTime = new TreeMap<>();
    EngineProfile profile = EngineProfile.of(p.engine());
    String accepted = profile.query(Signal.STEP_ACCEPTED_TOKENS, stepScope);
    String drafted = profile.query(Signal.STEP_DRAFT_TOKENS, stepScope);
    collect(byTime, 0, range(api, accepted, from, at, sample));
    collect(byTime, 1, range(api, drafted, from, at, sample));
    collect(
        byTime,
        2,
        range(api, profile.query(Signal.STEP_ACCEPTED_TOKENS, blockScope), from, at, block));
    collect(
        byTime,
        3,
        range(api, profile.query(Signal.STEP_DRAFT_TOKENS, blockScope), from, at, block));
    List<StepSample> samples =
        byTime.entrySet().stream()
            .map(
                e ->
                    new StepSample(
                        Instant.ofEpochMilli(e.getKey()),
                        e.getValue()[0],
                        e.getValue()[1],
                        e.getValue()[2],
                        e.getValue()[3]))
            .toList();
    NoiseFit.Result r = NoiseFit.fit(samples, sample, blockSteps, at);
    if (r instanceof NoiseFit.Learned l) {
      var m = l.model();
      if (p.thresholds().change().isPresent()) {
        m =
            m.withShortExcursions(
                ShortExcursionQueries.record(
                    api, p, m, samples, from, at, sample, step, p.thresholds().change().get()));
      }
      String status =
          String.format(
              java.util.Locale.ROOT,
              "learned from %.1f days: level %.3f%s, overdispersion %.1f, wander %.3f%s%s%s%s",
              m.history().toMinutes() / 1440.0,
              m.level(),
              m.hourly() == null ? "" : " (by hour of day)",
              m.phi(),
              Math.sqrt(m.wander()),
              m.hoursWidening() > 1
                  ? String.format(
                      java.util.Locale.ROOT,
                      " (%.1fx its blocks', for its wander over hours or its excursions' tail)",
                      m.hoursWidening())
                  : "",
              m.localWander() == null
                  ? ""
                  : String.format(
                      java.util.Locale.ROOT,
                      " (%.3f against the hour before)",
                      Math.sqrt(m.localWander())),
              m.widening() > 1
                  ? String.format(
                      java.util.Locale.ROOT,
                      "; falls from the hour before %.1fx wider than the model allows (the"
                          + " sudden-drop test widened to match)",
                      m.widening())
                  : "",
              m.doubt() == null ? "" : "; model in doubt: " + m.doubt());
      return new RecipeModel(m, status + ShortExcursionQueries.status(m), at, step);
    }
    NoiseFit.Insufficient none = (NoiseFit.Insufficient) r;
    return new RecipeModel(null, none.reason() + advice(none, samples, from, history), at, step);
  }

  /** The longest {@code learn} the advice below names; beyond it the traffic is too thin. */
  static final Duration MAX_ADVISED = Duration.ofDays(30);

  /**
   * Where the data already goes back to the start of the window ({@code from}, {@code learn} long),
   * waiting brings no more history: the holes are the recipe's own (an idle night, long outages),
   * and the user is the one who can widen the window. Says so, and by how much at this traffic.
   * Nothing for a recipe younger than its window, or with no traffic at all.
   */
  static String advice(
      NoiseFit.Insufficient none, List<StepSample> samples, Instant from, Duration learn) {
    if (none.history().isZero()
        || samples.isEmpty()
        || samples.get(0).at().isAfter(from.plus(NoiseFit.HOLE))) {
      return "";
    }
    long days =
        (long)
            Math.ceil(
                (double) NoiseFit.MIN_HISTORY.toMillis()
                    / none.history().toMillis()
                    * learn.toMillis()
                    / Duration.ofDays(1).toMillis());
    return "; the last "
        + Durations.format(learn)
        + " holds no more (stretches of more than an hour without traffic or scrapes do not"
        + " count)"
        + (days <= MAX_ADVISED.toDays()
            ? ": learn from " + days + "d or more (thresholds.change.learn)"
            : "");
  }

  /**
   * The series {@code promql} (one recipe's) returns from {@code from} to {@code to}, every {@code
   * step}.
   */
  static List<Series> range(
      PrometheusApi api, String promql, Instant from, Instant to, Duration step)
      throws PrometheusException {
    QueryResult r = api.queryRange(promql, from, to, step);
    return r instanceof QueryResult.Matrix m ? m.series() : List.of();
  }

  /** Sums every series (one per recipe: the selector is the recipe's own) into column {@code i}. */
  private static void collect(Map<Long, double[]> byTime, int column, List<Series> series) {
    sums(series)
        .forEach(
            (t, v) -> {
              double[] row =
                  byTime.computeIfAbsent(
                      t, k -> new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN});
              row[column] = v;
            });
  }

  /** Each time's (epoch milliseconds) sum over the series' finite points. */
  static Map<Long, Double> sums(List<Series> series) {
    Map<Long, Double> sums = new HashMap<>();
    for (Series s : series) {
      for (Series.Point point : s.points()) {
        if (Double.isFinite(point.value())) {
          sums.merge(Math.round(point.time() * 1000), point.value(), Double::sum);
        }
      }
    }
    return sums;
  }
}
