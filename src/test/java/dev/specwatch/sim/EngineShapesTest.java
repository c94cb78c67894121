package dev.specwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.Exposition;
import dev.specwatch.testing.FixtureServer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The simulator imitates the golden expositions of {@code src/test/resources/engines/} (written
 * from each engine's source, docs/ENGINES.md), not the reverse: for every engine and release shape
 * it serves the same families with the same types, HELP lines and label names.
 */
class EngineShapesTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "vllm-v1-dp2, vllm, per-position, 2, 3",
    "vllm-v1-token-counters-only, vllm, token-counters-only, 1, 3",
    "vllm-dynamic-draft-length, vllm, per-position, 1, 5",
    "sglang-verify-calls, sglang, verify-calls, 1, 4",
    "sglang-dp-attention, sglang, verify-calls, 2, 4",
    "sglang-gauges-only, sglang, gauges-only, 2, 4",
    "sglang-active-k, sglang, active-k, 1, 5",
    "sglang-adaptive-k, sglang, active-k, 1, 5",
    "trtllm, trtllm, iteration-stats, 1, 3",
    "trtllm-iteration-stats-only, trtllm, no-finished-requests, 1, 3",
    "llamacpp, llamacpp, per-position, 1, 4",
    "ray_vllm, ray_vllm, per-position, 2, 3",
  })
  void simulatorServesTheUpstreamShape(
      String fixture, String engine, String version, int engines, int k) {
    StringBuilder acceptance = new StringBuilder();
    for (int i = 0; i < k; i++) {
      acceptance.append(i == 0 ? "" : ", ").append(0.9 - 0.2 * i);
    }
    String yaml =
        "models:\n  - model_name: m\n    engine: "
            + engine
            + "\n    version: "
            + version
            + "\n    engines: "
            + engines
            + "\n    num_speculative_tokens: "
            + k
            + "\n    phases:\n      - {name: steady, requests_per_second: 2,"
            + " position_acceptance: ["
            + acceptance
            + "]}\n";
    Simulator sim =
        new Simulator(
            ScenarioLoader.parse("s.yaml", yaml, Path.of(".")), Clock.fixed(T0, ZoneOffset.UTC));
    Map<String, Exposition.Family> simulated =
        Exposition.parse(sim.exposition(Duration.ofSeconds(60))).families();
    Map<String, Exposition.Family> golden =
        Exposition.parse(FixtureServer.text(fixture)).families();

    assertThat(simulated.keySet()).as("families").isEqualTo(golden.keySet());
    for (Exposition.Family g : golden.values()) {
      Exposition.Family s = simulated.get(g.name());
      assertThat(s.type()).as("TYPE of %s", g.name()).isEqualTo(g.type());
      assertThat(s.help()).as("HELP of %s", g.name()).isEqualTo(g.help());
      assertThat(s.labelNames()).as("label names of %s", g.name()).isEqualTo(g.labelNames());
      assertThat(s.samples()).as("series of %s", g.name()).hasSameSizeAs(g.samples());
    }
  }
}
