package dev.specwatch.alerting;

import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.signals.Baseline;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.SignalValues;
import java.util.Locale;
import java.util.Optional;

/**
 * The acceptance rate of the current window against the recipe's own baseline: relative drop and a
 * one-sided z-test of the current proportion against the baseline's, z = (p0 - p1) / sqrt(p0 (1 -
 * p0) / n), n = drafts in the window. A drop on thin traffic is not significant and does not fire.
 */
public record RegressionRule(Policy.Regression regression, Severity severity) implements Rule {
  @Override
  public dev.specwatch.model.RuleName ruleName() {
    return dev.specwatch.model.RuleName.REGRESSION;
  }

  @Override
  public Severity severity(RecipeSnapshot snapshot) {
    return severity;
  }

  @Override
  public Judged judge(RecipeSnapshot s, Context context) {
    return Judged.of(judge(s));
  }

  Verdict judge(RecipeSnapshot s) {
    return Verdict.withoutEvidence(s).orElseGet(() -> judge(s.signals(), s.baseline()));
  }

  Verdict judge(SignalValues v, Optional<Baseline> baseline) {
    Policy.Regression r = regression;
    Double p1 = v.acceptanceRate();
    Double n = v.draftsInWindow();
    Double p0 = baseline.map(Baseline::acceptanceRate).orElse(null);
    Double nb = baseline.map(Baseline::drafts).orElse(null);
    if (p1 == null || n == null || p0 == null || nb == null) {
      return Verdict.unknown("no baseline");
    }
    if (nb < r.minBaselineDrafts() || p0 <= 0 || p0 >= 1) {
      return Verdict.unknown("baseline too thin");
    }
    double drop = (p0 - p1) / p0;
    // Acceptance moves with the prompt mix far beyond binomial noise: the window's own sampling
    // error and the spread its value showed over the baseline both count.
    double binomial = p0 * (1 - p0) / n;
    Double spread = baseline.map(Baseline::acceptanceSpread).orElse(null);
    double se = Math.sqrt(binomial + (spread == null ? 0 : spread * spread));
    double z = (p0 - p1) / se;
    double threshold = p0 * (1 - r.maxRelativeDrop());
    String detail =
        String.format(
            Locale.ROOT,
            "acceptance %.3f vs baseline %.3f (%s): %+.1f %%, z=%.1f",
            p1,
            p0,
            Verdict.human(r.baseline()),
            -drop * 100,
            z);
    if (drop > r.maxRelativeDrop() && z >= r.minZ()) {
      return Verdict.breached(p1, threshold, "regression: " + detail);
    }
    return Verdict.clear(p1, threshold, detail);
  }
}
