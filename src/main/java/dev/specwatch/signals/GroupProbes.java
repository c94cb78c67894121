package dev.specwatch.signals;

import dev.specwatch.model.Engine;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Sample;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The questions the {@link Evaluator} asks each group of recipes beside its signals, one query each
 * whatever the number of recipes: which servers export the engine's full release shape, how much of
 * the window their data covers, and which k they say they run.
 */
final class GroupProbes {
  private static final Logger logger = LoggerFactory.getLogger(GroupProbes.class);

  private GroupProbes() {}

  /**
   * The recipes whose window is not yet full, with the seconds their data covers (one query for the
   * group): the first sample of the engine's generation-token counter inside the window, found to
   * within a thirtieth of it (at most 15 s) by a subquery. A window counts as full from 90 % (a
   * scrape interval or two short of it is not worth a notice). Empty when the query fails: the
   * notice is a courtesy, the figures stand without it.
   */
  static IdentityHashMap<Policy, Long> covered(
      Engine engine,
      List<String> labelNames,
      QueryScope scope,
      Duration window,
      Map<List<String>, Policy> byValues,
      Evaluator.Fetcher fetcher) {
    // Fine enough that data begun after the last subquery step is still seen: at most 15 s.
    Duration resolution = Duration.ofSeconds(Math.max(1, Math.min(15, window.toSeconds() / 30)));
    String promql =
        "time() - min by ("
            + PromQl.labelList(labelNames)
            + ") (min_over_time(timestamp("
            + EngineProfile.SERVED.get(engine)
            + PromQl.selector(scope.matchers())
            + ")["
            + PromQl.range(window)
            + ":"
            + PromQl.range(resolution)
            + "]))";
    IdentityHashMap<Policy, Long> out = new IdentityHashMap<>();
    try {
      for (Sample sample : fetcher.fetch(promql)) {
        Policy owner = byValues.get(Evaluator.values(sample, labelNames));
        double seconds = sample.value();
        if (owner != null
            && Double.isFinite(seconds)
            && seconds >= 0
            && seconds < window.toSeconds() * 0.9) {
          out.put(owner, Math.round(seconds));
        }
      }
    } catch (PrometheusException e) {
      logger.debug("window coverage of {} not read: {}", engine, e.getMessage());
    }
    return out;
  }

  /**
   * The recipes whose servers export the engine's full-shape series (one query for the group), or
   * empty when the query fails: the figures are still right, only their form goes unsaid.
   */
  static Optional<Set<Policy>> fullShape(
      String series,
      List<String> labelNames,
      QueryScope scope,
      Map<List<String>, Policy> byValues,
      Evaluator.Fetcher fetcher) {
    String promql =
        "group by ("
            + PromQl.labelList(labelNames)
            + ") ("
            + series
            + PromQl.selector(scope.matchers())
            + ")";
    try {
      Set<Policy> out = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
      for (Sample sample : fetcher.fetch(promql)) {
        Policy owner = byValues.get(Evaluator.values(sample, labelNames));
        if (owner != null) {
          out.add(owner);
        }
      }
      return Optional.of(out);
    } catch (PrometheusException e) {
      logger.debug("which recipes export {} is unknown: {}", series, e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * What each recipe's servers reported of k over the window (one query for the group), or empty
   * for a recipe whose servers said nothing; empty when the query fails, as the figures stand
   * without it.
   */
  static IdentityHashMap<Policy, ActiveK.Reading> activeK(
      ActiveK source,
      List<String> labelNames,
      QueryScope scope,
      Map<List<String>, Policy> byValues,
      Evaluator.Fetcher fetcher) {
    IdentityHashMap<Policy, double[]> bounds = new IdentityHashMap<>();
    try {
      for (Sample sample : fetcher.fetch(source.query(scope))) {
        Policy owner = byValues.get(Evaluator.values(sample, labelNames));
        if (owner == null || !Double.isFinite(sample.value())) {
          continue;
        }
        double[] b = bounds.computeIfAbsent(owner, p -> new double[] {Double.NaN, Double.NaN});
        double k = source.kOf(sample.value());
        if ("min".equals(sample.labels().get("k_bound"))) {
          b[0] = k;
        } else {
          b[1] = k;
        }
      }
    } catch (PrometheusException e) {
      logger.debug("the k reported by {} not read: {}", source.series(), e.getMessage());
    }
    IdentityHashMap<Policy, ActiveK.Reading> out = new IdentityHashMap<>();
    bounds.forEach(
        (p, b) -> {
          double max = b[1];
          double min = Double.isNaN(b[0]) ? max : b[0];
          if (Double.isFinite(max) && max >= 1) {
            out.put(
                p,
                new ActiveK.Reading(
                    (int) Math.round(Math.max(1, min)),
                    (int) Math.round(max),
                    source.exact(),
                    source.inFigures(),
                    source.says()));
          }
        });
    return out;
  }
}
