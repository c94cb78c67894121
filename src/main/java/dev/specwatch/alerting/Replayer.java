package dev.specwatch.alerting;

import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.QueryResult;
import dev.specwatch.prometheus.Sample;
import dev.specwatch.prometheus.Series;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.signals.SpeedupReadings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates policies over a past range through the same evaluator and state machine as the daemon,
 * and returns every transition that would have happened, without notifying or touching the daemon's
 * state. Each query is sent once as a range query and sliced per step.
 */
public final class Replayer {
  /** Steps per range query: under Prometheus' 11,000 points per series, and memory-bounded. */
  static final int CHUNK_STEPS = 2_000;

  private final PrometheusApi api;
  private final SpecwatchConfig.Alerting settings;

  public Replayer(PrometheusApi api, SpecwatchConfig.Alerting settings) {
    this.api = api;
    this.settings = settings;
  }

  /** The replay's transitions, the number of evaluation steps and of range queries sent. */
  public record Result(
      List<Transition> transitions, int steps, int queries, AlertState finalState) {}

  /**
   * @param policies the recipes to replay: speculative ones and baselines (a {@code
   *     speedup_baseline} is looked up among them)
   */
  public Result replay(
      List<Policy> policies, Duration window, Instant from, Instant to, Duration step)
      throws PrometheusException {
    // thresholds.speedup reads hours of history: fetched once, sliced at each step.
    SpeedupReadings speedups = SpeedupReadings.replaying(api, policies, from, to);
    Evaluator evaluator = new Evaluator(api, Clock.systemUTC(), speedups);
    Learner learner = new Learner(api);
    // The queries an evaluation sends do not depend on the answers: record them once.
    Set<String> queries = new LinkedHashSet<>();
    evaluator.evaluate(
        policies,
        window,
        step,
        from,
        promql -> {
          queries.add(promql);
          return List.of();
        });
    AlertEngine engine = new AlertEngine(settings);
    AlertState state = AlertState.empty();
    List<Transition> transitions = new ArrayList<>();
    int steps = 0;
    int sent = speedups.preloadQueries();
    // Chunks of steps bound the memory: each query's answers for one chunk at a time.
    Instant chunkStart = from;
    while (!chunkStart.isAfter(to)) {
      Instant chunkEnd = min(to, chunkStart.plus(step.multipliedBy(CHUNK_STEPS - 1)));
      Map<String, Map<Long, List<Sample>>> slices = new HashMap<>();
      for (String promql : queries) {
        slices.put(promql, slices(api.queryRange(promql, chunkStart, chunkEnd, step)));
        sent++;
      }
      for (Instant t = chunkStart; !t.isAfter(chunkEnd); t = t.plus(step)) {
        long millis = t.toEpochMilli();
        state = state.withModels(learner.learn(policies, state, step, t));
        Evaluation e =
            evaluator.evaluate(
                policies,
                window,
                step,
                t,
                promql -> slices.getOrDefault(promql, Map.of()).getOrDefault(millis, List.of()));
        AlertEngine.Step s = engine.step(state, policies, e, List.of());
        state = s.state();
        transitions.addAll(s.transitions());
        steps++;
      }
      chunkStart = chunkEnd.plus(step);
    }
    return new Result(transitions, steps, sent, state);
  }

  private static Map<Long, List<Sample>> slices(QueryResult r) {
    Map<Long, List<Sample>> byTime = new HashMap<>();
    if (r instanceof QueryResult.Matrix m) {
      for (Series series : m.series()) {
        for (Series.Point p : series.points()) {
          long millis = Math.round(p.time() * 1000);
          byTime
              .computeIfAbsent(millis, k -> new ArrayList<>())
              .add(new Sample(series.labels(), Instant.ofEpochMilli(millis), p.value()));
        }
      }
    }
    return byTime;
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
