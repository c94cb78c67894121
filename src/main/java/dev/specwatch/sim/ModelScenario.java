package dev.specwatch.sim;

import java.util.List;

/**
 * The traffic of one served model.
 *
 * @param engine {@code vllm} (counters per data-parallel engine) or {@code sglang} (tokenizer
 *     counters per server, scheduler gauges per DP-attention rank; docs/ENGINES.md)
 * @param engines vLLM: data-parallel engines; SGLang: DP-attention ranks ({@code dp_rank} label
 *     when more than one); traffic split evenly
 * @param repeat loop the phases forever; otherwise the last phase goes on forever
 * @param version the release shape of the engine's metrics: for SGLang {@code verify-calls} (the
 *     default: with {@code sglang:spec_verify_calls_total}) or {@code gauges-only} (older
 *     releases); empty for vLLM
 */
public record ModelScenario(
    String modelName,
    String engine,
    int engines,
    List<Phase> phases,
    boolean repeat,
    String version) {
  public static final List<String> SGLANG_VERSIONS = List.of("verify-calls", "gauges-only");

  public ModelScenario(
      String modelName, String engine, int engines, List<Phase> phases, boolean repeat) {
    this(modelName, engine, engines, phases, repeat, "sglang".equals(engine) ? "verify-calls" : "");
  }

  public ModelScenario {
    if (!"vllm".equals(engine) && !"sglang".equals(engine)) {
      throw new IllegalArgumentException("engine must be vllm or sglang");
    }
    if ("sglang".equals(engine) ? !SGLANG_VERSIONS.contains(version) : !version.isEmpty()) {
      throw new IllegalArgumentException("version " + version + " is not one of engine " + engine);
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
