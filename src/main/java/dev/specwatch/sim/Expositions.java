package dev.specwatch.sim;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The simulator's engines, the one list to extend with an engine: for each, its release shapes
 * (docs/ENGINES.md; the default first), how it writes them, and whether its series carry the
 * model's name (without one, a simulator serves one model of that engine).
 */
final class Expositions {
  private Expositions() {}

  /** Writes an engine's models of the scenario, {@code elapsed} after the start. */
  @FunctionalInterface
  interface Writer {
    void write(StringBuilder out, Scenario scenario, Duration elapsed);
  }

  /**
   * @param writer empty for vLLM, which {@link Simulator} writes itself (its samples also feed the
   *     backfill)
   */
  record Shape(String engine, List<String> versions, Optional<Writer> writer, boolean labelled) {}

  static final List<Shape> ALL =
      List.of(
          new Shape("vllm", List.of("per-position", "token-counters-only"), Optional.empty(), true),
          new Shape(
              "sglang",
              List.of("verify-calls", "gauges-only", ModelScenario.SGLANG_ACTIVE_K),
              Optional.of(SglangExposition::write),
              true),
          new Shape(
              "trtllm",
              List.of("iteration-stats", ModelScenario.NO_FINISHED_REQUESTS),
              Optional.of(TrtllmExposition::write),
              // trtllm-serve writes model_name="undefined" whatever it serves
              false),
          new Shape(
              "llamacpp", List.of("per-position"), Optional.of(LlamacppExposition::write), false));

  /** The engines' keys, vLLM first. */
  static List<String> engines() {
    return ALL.stream().map(Shape::engine).toList();
  }

  /** The shape of {@code engine}. */
  static Optional<Shape> of(String engine) {
    return ALL.stream().filter(s -> s.engine().equals(engine)).findFirst();
  }
}
