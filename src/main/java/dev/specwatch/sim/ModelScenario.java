package dev.specwatch.sim;

import java.util.List;

/**
 * The traffic of one served model.
 *
 * @param engine {@code vllm} (counters per data-parallel engine) or {@code sglang} (gauges per
 *     tensor-parallel rank, every rank reporting the same values)
 * @param engines vLLM: data-parallel engines, traffic split evenly; SGLang: tensor-parallel ranks
 * @param repeat loop the phases forever; otherwise the last phase goes on forever
 */
public record ModelScenario(
    String modelName, String engine, int engines, List<Phase> phases, boolean repeat) {
  public ModelScenario {
    if (!"vllm".equals(engine) && !"sglang".equals(engine)) {
      throw new IllegalArgumentException("engine must be vllm or sglang");
    }
    if (modelName == null || modelName.isEmpty() || engines < 1 || phases.isEmpty()) {
      throw new IllegalArgumentException("model_name, engines >= 1 and one phase are required");
    }
    phases = List.copyOf(phases);
    for (int i = 0; i < phases.size() - 1; i++) {
      if (phases.get(i).duration() == null) {
        throw new IllegalArgumentException("only the last phase may last forever");
      }
    }
    if (repeat && phases.get(phases.size() - 1).duration() == null) {
      throw new IllegalArgumentException("a repeating model needs a duration on every phase");
    }
  }

  /** The largest k of any phase: how many per-position series can exist. */
  public int maxSpeculativeTokens() {
    return phases.stream().mapToInt(Phase::numSpeculativeTokens).max().orElse(1);
  }
}
