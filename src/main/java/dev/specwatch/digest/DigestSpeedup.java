package dev.specwatch.digest;

import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.signals.LoadHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** The week's measured speed-up of one recipe against its baseline (docs/SPEEDUP.md). */
final class DigestSpeedup {
  private DigestSpeedup() {}

  /** At most this many steps a week: within Prometheus' 11,000 points a query. */
  private static final long STEPS = 2000;

  static RecipeWeek.Speedup measure(
      PrometheusApi api, Policy p, Map<String, Policy> byName, Instant start, Instant end)
      throws PrometheusException {
    if (p.speedupBaseline().isEmpty()) {
      return RecipeWeek.Speedup.notMeasured(
          "not measured: no speedup_baseline (a deployment of the model without speculation;"
              + " docs/SPEEDUP.md)");
    }
    Policy baseline = byName.get(p.speedupBaseline().get());
    if (baseline == null) {
      return RecipeWeek.Speedup.notMeasured(
          "not measured: no recipe " + p.speedupBaseline().get() + " in the config");
    }
    long minutes = Math.max(1, (Duration.between(start, end).toMinutes() + STEPS - 1) / STEPS);
    Duration step = Duration.ofMinutes(minutes);
    SpeedupByLoad.Result r = LoadHistory.speedup(api, p, baseline, start, end, step);
    SpeedupByLoad.Bucket most = null;
    for (SpeedupByLoad.Bucket b : r.byLoad()) {
      if (b.speedup() != null && (most == null || b.hours() > most.hours())) {
        most = b;
      }
    }
    if (most == null) {
      return RecipeWeek.Speedup.notMeasured(
          "not measured: too little load on both "
              + p.recipe()
              + " and "
              + baseline.recipe()
              + " at the same number of running requests this week");
    }
    return new RecipeWeek.Speedup(
        baseline.recipe(),
        most.speedup(),
        most.low(),
        most.high(),
        most.runningMin(),
        most.runningMax(),
        r.paysUpToRunning(),
        null,
        r.byLoad().stream()
            .map(
                b ->
                    new RecipeWeek.Bar(
                        b.runningMin() == b.runningMax()
                            ? Integer.toString(b.runningMin())
                            : b.runningMin() + "–" + b.runningMax(),
                        b.speedup(),
                        b.verdict()))
            .toList());
  }
}
