package dev.specwatch.sim;

import dev.specwatch.model.Engine;
import java.util.List;

/**
 * The traffic of one served model.
 *
 * @param engine one the simulator serves ({@link Expositions}): vLLM (counters per data-parallel
 *     engine), SGLang (tokenizer counters per server, scheduler gauges per DP-attention rank),
 *     TensorRT-LLM, llama.cpp or vLLM behind Ray Serve LLM (docs/ENGINES.md)
 * @param engines vLLM: data-parallel engines; Ray Serve: replicas; SGLang: DP-attention ranks
 *     ({@code dp_rank} label when more than one); traffic split evenly
 * @param repeat loop the phases forever; otherwise the last phase goes on forever
 * @param version the release shape of the engine's metrics (docs/ENGINES.md): for SGLang {@code
 *     verify-calls} (the default: with {@code sglang:spec_verify_calls_total}), {@code gauges-only}
 *     (older releases) or {@code active-k} (the active speculative config as gauges, {@code
 *     is_streaming} on the token counters); for vLLM {@code per-position} (the default: {@code
 *     num_drafts} and the per-position counter) or {@code token-counters-only} (before vllm PR
 *     #16665); for TensorRT-LLM {@code iteration-stats} (the default: every family) or {@code
 *     no-finished-requests} (the iteration counters only, as before a request finishes)
 */
public record ModelScenario(
    String modelName,
    Engine engine,
    int engines,
    List<Phase> phases,
    boolean repeat,
    String version) {
  /**
   * TensorRT-LLM before a request finishes: only the iteration counters and gauges, none of the
   * per-request ones (generation and prompt tokens, the per-position counters).
   */
  public static final String NO_FINISHED_REQUESTS = "no-finished-requests";

  /**
   * SGLang as of sglang@016d8605: the verify counter, the active speculative config as gauges
   * ({@code spec_num_steps}, {@code spec_num_draft_tokens}) and {@code is_streaming} on the token
   * counters.
   */
  public static final String SGLANG_ACTIVE_K = "active-k";

  /** The simulated engines' keys ({@link Expositions}). */
  public static List<String> engineKeys() {
    return Expositions.engines().stream().map(Engine::key).toList();
  }

  public ModelScenario(
      String modelName, Engine engine, int engines, List<Phase> phases, boolean repeat) {
    this(modelName, engine, engines, phases, repeat, versions(engine).get(0));
  }

  /** The release shapes of {@code engine}, the default first. */
  public static List<String> versions(Engine engine) {
    return Expositions.of(engine).map(Expositions.Shape::versions).orElse(List.of());
  }

  public ModelScenario {
    if (engine == null || Expositions.of(engine).isEmpty()) {
      throw new IllegalArgumentException("engine must be one of " + engineKeys());
    }
    if (!versions(engine).contains(version)) {
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
