package dev.specwatch.digest;

import dev.specwatch.advisor.Advisor;
import dev.specwatch.advisor.LoadSchedule;
import dev.specwatch.model.Policy;
import java.util.List;

/**
 * The digest's advice for one recipe's week: with a measured speed-up, the one k for the week's
 * load that {@code advise} and the recipe page give (docs/SPEEDUP.md); otherwise the acceptance
 * model's best measured k, or why there is none.
 *
 * @param k null without a recommendation ({@code basis} says why)
 */
record DigestAdvice(Integer k, Double gain, String basis) {
  private static final DigestAdvice NONE = new DigestAdvice(null, null, null);

  static DigestAdvice of(
      Policy p, List<Double> positions, Double drafts, RecipeWeek.Speedup speedup) {
    if (positions.isEmpty() || positions.stream().anyMatch(x -> x == null) || drafts == null) {
      return NONE;
    }
    LoadSchedule.Overall o = speedup.overall();
    if (o != null) {
      return new DigestAdvice(
          o.k(),
          o.expectedSpeedup() / o.measuredSpeedup() - 1,
          o.basis("the week", p.numSpeculativeTokens()));
    }
    Advisor.Advice advice =
        Advisor.advise(positions, p.numSpeculativeTokens(), Advisor.DEFAULT_DRAFT_COST, drafts);
    return advice.enough()
        ? new DigestAdvice(
            advice.recommended().k(), advice.gain(), advice.basis() + " over the week")
        : new DigestAdvice(
            null, null, advice.warning() + " (" + advice.basis() + " over the week)");
  }
}
