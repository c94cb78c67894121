package dev.specwatch.model;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The serving engine whose metrics a recipe is read from: the {@code engine:} key of a policy.
 *
 * <p>This enum is the engine registry's first line: its key, and the two facts a policy file is
 * checked against (the config layer sees no profiles). Everything else specwatch knows of an engine
 * is in its profile ({@code signals.EngineProfile}); docs/ARCHITECTURE.md, "Where to add an
 * engine".
 */
public enum Engine {
  VLLM("vllm", true, null),
  SGLANG(
      "sglang",
      false,
      "needs a step's own drafts and accepted tokens; SGLang's tokenizer counts a request's"
          + " tokens and verify calls when it finishes, so a step holds whole requests, not the"
          + " step"),
  TRTLLM(
      "trtllm",
      true,
      "learning TensorRT-LLM's per-step counters is not built yet (docs/ENGINES.md)"),
  LLAMACPP("llamacpp", true, null),
  /** vLLM behind Ray Serve LLM: vLLM's metrics under {@code ray_vllm_} (docs/ENGINES.md). */
  RAY_VLLM("ray_vllm", true, null);

  private final String key;
  private final boolean positionCounters;
  private final String noStepLearning;

  Engine(String key, boolean positionCounters, String noStepLearning) {
    this.key = key;
    this.positionCounters = positionCounters;
    this.noStepLearning = noStepLearning;
  }

  /** The name used in policies, JSON and labels: {@code vllm}, {@code sglang}, ... */
  public String key() {
    return key;
  }

  /**
   * Whether the engine exports acceptance by draft position, so a policy may set thresholds on it.
   */
  public boolean positionCounters() {
    return positionCounters;
  }

  /**
   * Why {@code change} thresholds and {@code detection: sequential} cannot learn this engine (they
   * need exact per-step draft and accepted counters), or empty where they can.
   */
  public Optional<String> noStepLearning() {
    return Optional.ofNullable(noStepLearning);
  }

  /** Every key, for messages: {@code vllm, sglang, trtllm, llamacpp, ray_vllm}. */
  public static String keys() {
    return Arrays.stream(values()).map(Engine::key).collect(Collectors.joining(", "));
  }

  public static Optional<Engine> parse(String key) {
    return Arrays.stream(values()).filter(e -> e.key.equals(key)).findFirst();
  }

  @Override
  public String toString() {
    return key;
  }
}
