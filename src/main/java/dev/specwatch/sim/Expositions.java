package dev.specwatch.sim;

import dev.specwatch.model.Engine;
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
  record Shape(Engine engine, List<String> versions, Optional<Writer> writer, boolean labelled) {}

  static final List<Shape> ALL =
      List.of(
          new Shape(
              Engine.VLLM, List.of("per-position", "token-counters-only"), Optional.empty(), true),
          new Shape(
              Engine.SGLANG,
              List.of("verify-calls", "gauges-only", ModelScenario.SGLANG_ACTIVE_K),
              Optional.of(SglangExposition::write),
              true),
          new Shape(
              Engine.TRTLLM,
              List.of("iteration-stats", ModelScenario.NO_FINISHED_REQUESTS),
              Optional.of(TrtllmExposition::write),
              // trtllm-serve writes model_name="undefined" whatever it serves
              false),
          new Shape(
              Engine.LLAMACPP,
              List.of("per-position"),
              Optional.of(LlamacppExposition::write),
              false),
          new Shape(
              Engine.RAY_VLLM, List.of("per-position"), Optional.of(RayExposition::write), true));

  /** The engines' keys, vLLM first. */
  static List<Engine> engines() {
    return ALL.stream().map(Shape::engine).toList();
  }

  /** The shape of {@code engine}. */
  static Optional<Shape> of(Engine engine) {
    return ALL.stream().filter(s -> s.engine() == engine).findFirst();
  }
}
