package dev.specwatch.digest;

import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.signals.FinishedRequests;
import dev.specwatch.signals.LoadHistory;
import java.time.Duration;
import java.time.Instant;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/** The week's measured speed-up of one recipe against its baseline (docs/SPEEDUP.md). */
final class DigestSpeedup {
  private DigestSpeedup() {}

  private static final NavigableMap<Double, SpeedupByLoad.Step> EMPTY = new TreeMap<>();

  /**
   * The day speculation stopped paying at a load it paid at before, in words ("stopped paying above
   * 7 running requests on Wed"), or null. Verdicts, not point estimates, decide (docs/SPEEDUP.md):
   * the first day whose buckets are measured to cost (the whole 95 % interval under 1×) from a load
   * an earlier day was measured to pay at (the interval over 1×), and no later day is measured to
   * pay there again, is the day named; a one-day dip that recovers, or a day that only breaks even
   * (its interval holds 1×), names none.
   */
  static String stoppedPaying(List<String> names, List<SpeedupByLoad.Result> days) {
    int earlierPaidUpTo = -1;
    for (int d = 0; d < days.size(); d++) {
      Integer limit = costsFrom(days.get(d));
      Integer paid = paidUpTo(days.get(d));
      if (limit != null && earlierPaidUpTo >= limit) {
        boolean sustained = true;
        for (int later = d + 1; later < days.size(); later++) {
          Integer paidLater = paidUpTo(days.get(later));
          if (paidLater != null && paidLater >= limit) {
            sustained = false;
          }
        }
        if (sustained) {
          return limit == 1
              ? "stopped paying at every measured load on " + names.get(d)
              : "stopped paying above " + (limit - 1) + " running requests on " + names.get(d);
        }
      }
      if (paid != null) {
        earlierPaidUpTo = Math.max(earlierPaidUpTo, paid);
      }
    }
    return null;
  }

  /** The smallest load of a bucket measured to cost (its verdict {@code costs}), or null. */
  private static Integer costsFrom(SpeedupByLoad.Result r) {
    for (SpeedupByLoad.Bucket b : r.byLoad()) {
      if (SpeedupByLoad.COSTS.equals(b.verdict())) {
        return b.runningMin();
      }
    }
    return null;
  }

  /** The largest load of a bucket measured to pay (its verdict {@code pays}), or null. */
  private static Integer paidUpTo(SpeedupByLoad.Result r) {
    Integer out = null;
    for (SpeedupByLoad.Bucket b : r.byLoad()) {
      if (SpeedupByLoad.PAYS.equals(b.verdict())) {
        out = b.runningMax();
      }
    }
    return out;
  }

  /**
   * The one k for the week's load, as {@code advise} and the recipe page give it; null where the
   * engine has no per-position counters or the query fails (the acceptance model's advice stands).
   */
  private static dev.specwatch.advisor.LoadSchedule.Overall overall(
      PrometheusApi api,
      Policy p,
      SpeedupByLoad.Result r,
      Instant start,
      Instant end,
      Duration step) {
    try {
      return dev.specwatch.advisor.LoadSchedule.overall(
          r, LoadHistory.positionsByLoad(api, p, start, end, step), p.numSpeculativeTokens());
    } catch (PrometheusException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Why the week's comparison may be confounded: the two sides' finished requests differ in mean
   * prompt or output length (docs/SPEEDUP.md, "Traffic that differs"); null where they do not or
   * where the engine exports no per-request histograms.
   */
  private static String confounded(
      PrometheusApi api, Policy p, Policy baseline, Instant start, Instant end)
      throws PrometheusException {
    return FinishedRequests.confounded(api, p, baseline, end, Duration.between(start, end))
        .orElse(null);
  }

  static RecipeWeek.Speedup measure(
      PrometheusApi api,
      Policy p,
      Map<String, Policy> byName,
      DigestPeriod period,
      Instant start,
      Instant end)
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
    // The step of every speed-up measurement, so the week's figures are the ones advise gives
    // over the same window.
    Duration step = LoadHistory.STEP;
    Map<String, NavigableMap<Double, SpeedupByLoad.Step>> steps =
        LoadHistory.fetchTimed(api, List.of(p, baseline), start, end, step);
    NavigableMap<Double, SpeedupByLoad.Step> spec = steps.getOrDefault(p.recipe(), EMPTY);
    NavigableMap<Double, SpeedupByLoad.Step> base = steps.getOrDefault(baseline.recipe(), EMPTY);
    double seconds = step.toSeconds();
    SpeedupByLoad.Result r =
        SpeedupByLoad.measure(List.copyOf(spec.values()), List.copyOf(base.values()), seconds);
    // Each day on its own: where it paid that day, to say on which day it stopped paying.
    List<String> dayNames = new ArrayList<>();
    List<SpeedupByLoad.Result> days = new ArrayList<>();
    for (int d = 0; d < 7; d++) {
      double from = period.dayBoundary(d).getEpochSecond();
      double to = period.dayBoundary(d + 1).getEpochSecond();
      if (from >= end.getEpochSecond()) {
        break;
      }
      dayNames.add(
          period.monday().plusDays(d).getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ROOT));
      days.add(
          SpeedupByLoad.measure(
              List.copyOf(spec.subMap(from, true, to, false).values()),
              List.copyOf(base.subMap(from, true, to, false).values()),
              seconds));
    }
    SpeedupByLoad.Bucket most = r.mostRun();
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
        stoppedPaying(dayNames, days),
        confounded(api, p, baseline, start, end),
        r.byLoad().stream()
            .map(
                b ->
                    new RecipeWeek.Bar(
                        b.runningMin() == b.runningMax()
                            ? Integer.toString(b.runningMin())
                            : b.runningMin() + "–" + b.runningMax(),
                        b.speedup(),
                        b.verdict()))
            .toList(),
        overall(api, p, r, start, end, step));
  }
}
