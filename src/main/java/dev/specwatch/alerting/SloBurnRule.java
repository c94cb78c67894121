package dev.specwatch.alerting;

import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SloStatus;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * Multi-window, multi-burn-rate alerting on the SLO's error budget (SRE workbook). The severity is
 * the burning window's; the burn-rate windows already require the condition to last, so no {@code
 * for} is added.
 */
public record SloBurnRule(Severity fallback) implements Rule {
  @Override
  public dev.specwatch.model.RuleName ruleName() {
    return dev.specwatch.model.RuleName.SLO_BURN;
  }

  @Override
  public Duration forDuration(Policy policy) {
    return Duration.ZERO;
  }

  @Override
  public Severity severity(RecipeSnapshot s) {
    return s.slo()
        .flatMap(st -> Optional.ofNullable(st.burning()).map(SloStatus.BurnWindow::severity))
        .orElse(fallback);
  }

  @Override
  public Judged judge(RecipeSnapshot s, Context context) {
    return Judged.of(judge(s));
  }

  Verdict judge(RecipeSnapshot s) {
    return s.slo()
        .map(SloBurnRule::judge)
        .orElse(
            Verdict.unknown(
                s.state() == RecipeState.ERROR ? RecipeState.ERROR.key() : "no SLO data"));
  }

  static Verdict judge(SloStatus st) {
    Duration period = st.slo().period();
    String budget =
        String.format(
            Locale.ROOT,
            "compliance %s, %s of the %s budget left",
            st.compliance() == null
                ? "–"
                : String.format(Locale.ROOT, "%.2f %%", st.compliance() * 100),
            st.budgetRemaining() == null
                ? "–"
                : String.format(Locale.ROOT, "%.0f %%", st.budgetRemaining() * 100),
            Verdict.human(period));
    SloStatus.BurnWindow w = st.burning();
    if (w == null) {
      Double hour = st.burnRates().get(Duration.ofHours(1));
      return Verdict.clear(hour, 0, "error budget burn under the alerting rates; " + budget);
    }
    double factor = w.factor(period);
    double longBurn = st.burnRates().get(w.longWindow());
    return Verdict.breached(
        longBurn,
        factor,
        String.format(
            Locale.ROOT,
            "SLO burn: %.1fx over %s and %.1fx over %s (alerting at %.1fx: %.0f %% of the budget in"
                + " %s); %s",
            longBurn,
            Verdict.human(w.longWindow()),
            st.burnRates().get(w.shortWindow()),
            Verdict.human(w.shortWindow()),
            factor,
            w.budgetShare() * 100,
            Verdict.human(w.longWindow()),
            budget));
  }
}
