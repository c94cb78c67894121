package dev.specwatch.schedule;

import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Series;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.QueryScope;
import dev.specwatch.signals.Signal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fleet page's 6-hour sparklines (acceptance; generation tokens/s for a deployment without
 * speculation): one range query per recipe (5-minute points over the evaluation window), cached
 * until the next evaluation, so a page view costs Prometheus at most one query per recipe per
 * evaluation interval, and for at most {@link #MAX_PER_EVALUATION} recipes.
 */
final class Sparklines {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(Sparklines.class);

  static final Duration SPAN = Duration.ofHours(6);
  static final Duration STEP = Duration.ofMinutes(5);

  /**
   * At most this many recipes get a sparkline per evaluation (one range query each): a fleet of
   * thousands must not turn one page view into thousands of queries. Beyond it: no sparkline.
   */
  static final int MAX_PER_EVALUATION = 500;

  private record Key(String recipe, Instant evaluatedAt) {}

  private final Map<Key, List<Double>> cache = new ConcurrentHashMap<>();

  /** The evaluation the cache holds sparklines of. */
  private volatile Instant current;

  List<Double> get(String recipe, Daemon.Wiring wiring, Evaluation last) {
    if (last == null) {
      return List.of();
    }
    Key key = new Key(recipe, last.evaluatedAt());
    if (!last.evaluatedAt().equals(current)) {
      // a new evaluation: the last one's sparklines go (once, not at every row of a page)
      cache.keySet().removeIf(k -> !k.evaluatedAt().equals(last.evaluatedAt()));
      current = last.evaluatedAt();
    }
    List<Double> cached = cache.get(key);
    if (cached != null) {
      return cached;
    }
    if (cache.size() >= MAX_PER_EVALUATION) {
      return List.of();
    }
    return cache.computeIfAbsent(key, k -> query(recipe, wiring, last.evaluatedAt()));
  }

  private static List<Double> query(String recipe, Daemon.Wiring wiring, Instant end) {
    Policy p = wiring.config().recipe(recipe).orElse(null);
    if (p == null) {
      return List.of();
    }
    Instant start = end.minus(SPAN);
    List<Double> values = new ArrayList<>();
    for (long i = 0; i <= SPAN.dividedBy(STEP); i++) {
      values.add(null);
    }
    try {
      // A deployment without speculation has no acceptance: its trend is its throughput.
      String promql =
          EngineProfile.of(p.engine())
              .query(
                  p.numSpeculativeTokens() == 0
                      ? Signal.GENERATION_TOKENS_PER_SECOND
                      : Signal.ACCEPTANCE_RATE,
                  QueryScope.of(p, wiring.config().evaluation().window()));
      PrometheusClient prometheus = wiring.prometheus();
      for (Series s : prometheus.queryRange(promql, start, end, STEP).series()) {
        for (Series.Point pt : s.points()) {
          long index = Math.round((pt.time() - start.getEpochSecond()) / STEP.toSeconds());
          if (index >= 0 && index < values.size()) {
            values.set((int) index, pt.value());
          }
        }
      }
    } catch (PrometheusException | RuntimeException e) {
      // One recipe's sparkline never takes the fleet page down: it reads "no data in 6 h".
      logger.debug("sparkline of {} not read: {}", recipe, e.toString());
      return List.of();
    }
    return values;
  }
}
