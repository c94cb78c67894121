package dev.specwatch.cli;

import dev.specwatch.advisor.Advisor;
import dev.specwatch.model.Policy;
import java.util.Locale;

/**
 * The draft cost {@code c} of {@code advise}'s model E_k / (1 + c·k) (docs/SPEEDUP.md): as given
 * with {@code --draft-cost}; else from TensorRT-LLM's {@code draft_overhead} where it is exported,
 * the share d of each iteration spent drafting, so that c·k / (1 + c·k) = d, i.e. c = d / ((1 − d)
 * k); else the default 0.1.
 *
 * @param source where the figure came from, in words
 */
record DraftCost(double value, String source) {
  static DraftCost of(Double given, Double draftOverhead, Policy p) {
    if (given != null) {
      return new DraftCost(given, "--draft-cost");
    }
    int k = p.numSpeculativeTokens();
    if (draftOverhead != null && draftOverhead > 0 && draftOverhead < 1 && k > 0) {
      return new DraftCost(
          draftOverhead / ((1 - draftOverhead) * k),
          String.format(
              Locale.ROOT,
              "from TensorRT-LLM's draft_overhead: %.1f %% of each iteration drafting",
              draftOverhead * 100));
    }
    return new DraftCost(Advisor.DEFAULT_DRAFT_COST, "default; --draft-cost to set it");
  }
}
