package dev.specwatch.signals;

import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A recipe's SLO at one evaluation: compliance over the period, remaining error budget, and the
 * burn rate over each alerting window (the error ratio of the window divided by the budget). Null
 * figures: no active slice in that window.
 *
 * @param burning the first multi-window pair whose long and short windows both burn faster than its
 *     factor, if any
 */
public record SloStatus(
    Policy.Slo slo,
    Double compliance,
    Double budgetRemaining,
    Map<Duration, Double> burnRates,
    BurnWindow burning) {

  /**
   * One multi-window, multi-burn-rate alert of the SRE workbook: fire when both windows burn faster
   * than {@code factor}, i.e. {@code budgetShare} of the period's budget would be spent in {@code
   * long}.
   */
  public record BurnWindow(
      Duration longWindow, Duration shortWindow, double budgetShare, Severity severity) {
    /** The burn-rate factor for this pair and period: 14.4 for 1h/5m over 30 days. */
    public double factor(Duration period) {
      return budgetShare * period.toSeconds() / (double) longWindow.toSeconds();
    }
  }

  /** The SRE workbook's four pairs: two page, two open tickets. */
  public static final List<BurnWindow> WINDOWS =
      List.of(
          new BurnWindow(Duration.ofHours(1), Duration.ofMinutes(5), 0.02, Severity.CRITICAL),
          new BurnWindow(Duration.ofHours(6), Duration.ofMinutes(30), 0.05, Severity.CRITICAL),
          new BurnWindow(Duration.ofDays(1), Duration.ofHours(2), 0.10, Severity.WARNING),
          new BurnWindow(Duration.ofDays(3), Duration.ofHours(6), 0.10, Severity.WARNING));

  /** The first burning pair given per-window burn rates, or null. */
  static BurnWindow burning(Map<Duration, Double> burn, Duration period) {
    for (BurnWindow w : WINDOWS) {
      Double longBurn = burn.get(w.longWindow());
      Double shortBurn = burn.get(w.shortWindow());
      double factor = w.factor(period);
      if (longBurn != null && shortBurn != null && longBurn > factor && shortBurn > factor) {
        return w;
      }
    }
    return null;
  }
}
