package dev.specwatch.signals;

import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Sample;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** A recipe's SLO status from subqueries at slice resolution (docs/ALERTING.md). */
final class SloQueries {
  private SloQueries() {}

  record Count(SloStatus status, int queries) {}

  /**
   * A recipe's SLO: the share of its active slices (those with a sample of the slice-window
   * acceptance rate) that missed the target, over the period and over each alerting window, via
   * subqueries at slice resolution. Two queries per window; only recipes with an slo pay for it.
   */
  static Count slo(Policy p, Evaluator.Fetcher fetcher) throws PrometheusException {
    Policy.Slo slo = p.slo().get();
    EngineProfile profile = EngineProfile.of(p.engine());
    String acceptance = profile.query(Signal.ACCEPTANCE_RATE, QueryScope.of(p, slo.slice()));
    String by = PromQl.labelList(p.matchLabelNames());
    String step = PromQl.range(slo.slice());
    Set<Duration> windows = new TreeSet<>();
    for (SloStatus.BurnWindow w : SloStatus.WINDOWS) {
      windows.add(w.longWindow());
      windows.add(w.shortWindow());
    }
    windows.add(slo.period());
    Map<Duration, Double> errorRatio = new HashMap<>();
    int queries = 0;
    for (Duration w : windows) {
      String range = "[" + PromQl.range(w) + ":" + step + "]";
      double active =
          first(
              fetcher.fetch(
                  "sum by (" + by + ") (count_over_time((" + acceptance + ")" + range + "))"));
      double good =
          first(
              fetcher.fetch(
                  "sum by ("
                      + by
                      + ") (count_over_time((("
                      + acceptance
                      + ") >= "
                      + slo.acceptanceRate()
                      + ")"
                      + range
                      + "))"));
      queries += 2;
      if (active > 0) {
        errorRatio.put(w, Math.max(0, (active - good) / active));
      }
    }
    Map<Duration, Double> burn = new HashMap<>();
    errorRatio.forEach((w, e) -> burn.put(w, e / slo.budget()));
    Double periodError = errorRatio.get(slo.period());
    Double compliance = periodError == null ? null : 1 - periodError;
    Double remaining = periodError == null ? null : 1 - periodError / slo.budget();
    return new Count(
        new SloStatus(slo, compliance, remaining, burn, SloStatus.burning(burn, slo.period())),
        queries);
  }

  private static double first(List<Sample> samples) {
    return samples.isEmpty() || !Double.isFinite(samples.get(0).value())
        ? 0
        : samples.get(0).value();
  }
}
