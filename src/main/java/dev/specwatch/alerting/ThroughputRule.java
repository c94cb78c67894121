package dev.specwatch.alerting;

import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.signals.Baseline;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.SignalValues;
import java.util.Locale;
import java.util.Optional;

/**
 * Generation tokens/s per running request against the baseline's: catches a bad build whose
 * acceptance looks fine while throughput collapses.
 */
public record ThroughputRule(Policy.Throughput throughput, Severity severity) implements Rule {
  @Override
  public dev.specwatch.model.RuleName ruleName() {
    return dev.specwatch.model.RuleName.THROUGHPUT;
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
    Double perRequest = v.tokensPerSecondPerRequest();
    Double genB = baseline.map(Baseline::generationTokensPerSecond).orElse(null);
    Double runningB = baseline.map(Baseline::runningRequests).orElse(null);
    if (perRequest == null || genB == null || runningB == null || runningB <= 0 || genB <= 0) {
      return Verdict.unknown("no baseline");
    }
    double now = perRequest;
    double before = genB / runningB;
    double drop = (before - now) / before;
    double threshold = before * (1 - throughput.maxRelativeDrop());
    String detail =
        String.format(
            Locale.ROOT,
            "%.1f tokens/s per running request vs baseline %.1f: %+.1f %%",
            now,
            before,
            -drop * 100);
    if (drop > throughput.maxRelativeDrop()) {
      return Verdict.breached(now, threshold, "throughput " + detail);
    }
    return Verdict.clear(now, threshold, "throughput " + detail);
  }
}
