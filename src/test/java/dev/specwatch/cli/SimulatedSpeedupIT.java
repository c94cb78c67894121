package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.sim.ScenarioLoader;
import dev.specwatch.sim.Simulator;
import dev.specwatch.testing.PrometheusServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator's step-time model, backfilled into a real Prometheus: a speculative deployment and
 * the same deployment without speculation, through the same loads. {@code advise} recovers the
 * model's speed-up at each load, and where speculation stops paying.
 */
class SimulatedSpeedupIT {
  private static final double BASE = 12;
  private static final double PER_TOKEN = 0.6;
  private static final double DRAFT = 1.5;
  private static final double[] ACCEPTANCE = {0.8, 0.6, 0.4};
  private static final int[] LOADS = {1, 2, 4, 8, 16, 32};

  @TempDir Path dir;

  /** E_k × 1000 / (b + p·R·(1 + k) + d·k): per-request tokens/s at load R with k drafts. */
  private static double perRequest(int running, int k) {
    double length = k == 0 ? 1 : 1 + ACCEPTANCE[0] + ACCEPTANCE[1] + ACCEPTANCE[2];
    return length * 1000 / (BASE + PER_TOKEN * running * (1 + k) + DRAFT * k);
  }

  /** The model's speed-up at load R with j drafts: E_j (b + pR) / (b + pR(1 + j) + dj). */
  private static double speedupAt(int running, int j) {
    double length = 1;
    for (int i = 0; i < j; i++) {
      length += ACCEPTANCE[i];
    }
    return length
        * (BASE + PER_TOKEN * running)
        / (BASE + PER_TOKEN * running * (1 + j) + DRAFT * j);
  }

  /** E_k (b + p·R) / (b + p·R·(1 + k) + d·k): the model's speed-up at load R. */
  private static double speedup(int running) {
    double length = 1 + ACCEPTANCE[0] + ACCEPTANCE[1] + ACCEPTANCE[2];
    return length * (BASE + PER_TOKEN * running) / (BASE + PER_TOKEN * running * 4 + DRAFT * 3);
  }

  private static String model(String name, int k) {
    StringBuilder m = new StringBuilder();
    m.append("  - model_name: ").append(name).append('\n');
    m.append("    num_speculative_tokens: ").append(k).append('\n');
    m.append("    repeat: true\n");
    m.append("    step_time: {base_ms: 12, per_token_ms: 0.6, draft_ms: 1.5}\n");
    m.append("    phases:\n");
    for (int load : LOADS) {
      m.append("      - {name: load-")
          .append(load)
          .append(", duration: 40m, running_requests: ")
          .append(load)
          .append(k > 0 ? ", position_acceptance: [0.8, 0.6, 0.4]" : "")
          .append("}\n");
    }
    return m.toString();
  }

  @Test
  void advisRecoversTheStepTimeModelsSpeedUpAtEveryLoad() throws Exception {
    String scenario =
        "name: speedup\nmodels:\n" + model("it/eagle", 3) + model("it/eagle-plain", 0);
    Instant t0 =
        Instant.ofEpochSecond(Instant.now().minus(Duration.ofDays(3)).getEpochSecond() / 60 * 60);
    Instant end = t0.plus(Duration.ofHours(8));
    Simulator sim =
        new Simulator(
            ScenarioLoader.parse("speedup.yaml", scenario, dir), Clock.fixed(t0, ZoneOffset.UTC));
    String history = sim.openMetricsHistory(t0, end, Duration.ofSeconds(15));
    assertThat(history)
        .as("no spec-decode series for the deployment without speculation")
        .doesNotContain("spec_decode_num_drafts_total{engine=\"0\",model_name=\"it/eagle-plain\"");
    try (PrometheusServer prometheus = PrometheusServer.builder().history(history).start()) {
      Path alerts = dir.resolve("alerts");
      Files.createDirectories(alerts);
      Files.writeString(
          alerts.resolve("eagle.yaml"),
          "recipe: eagle\nmatch: {model_name: it/eagle}\nnum_speculative_tokens: 3\n"
              + "speedup_baseline: eagle-plain\n",
          StandardCharsets.UTF_8);
      Files.writeString(
          alerts.resolve("plain.yaml"),
          "recipe: eagle-plain\nmatch: {model_name: it/eagle-plain}\nnum_speculative_tokens: 0\n",
          StandardCharsets.UTF_8);
      Path config = dir.resolve("specwatch.yaml");
      Files.writeString(
          config,
          "prometheus: {url: \"" + prometheus.baseUri() + "\"}\npolicies: alerts\n",
          StandardCharsets.UTF_8);
      CliRunner.Result r =
          CliRunner.run(
              "advise",
              "--config",
              config.toString(),
              "--recipe",
              "eagle",
              "--window",
              "8h",
              "--time",
              end.toString(),
              "--output",
              "json");
      assertThat(r.exit()).as(r.err()).isZero();
      JsonNode speedup = new ObjectMapper().readTree(r.out()).path("speedup");
      JsonNode buckets = speedup.path("by_load");
      assertThat(buckets).as(speedup.toString()).hasSize(LOADS.length);
      for (int i = 0; i < LOADS.length; i++) {
        double truth = speedup(LOADS[i]);
        assertThat(buckets.get(i).path("running_min").asInt()).isEqualTo(LOADS[i]);
        assertThat(buckets.get(i).path("speedup").asDouble())
            .as("load %d: %s", LOADS[i], buckets.get(i))
            .isCloseTo(truth, within(truth * 0.05));
        double spec = perRequest(LOADS[i], 3);
        double plain = perRequest(LOADS[i], 0);
        assertThat(buckets.get(i).path("tokens_per_second_per_request").asDouble())
            .as("load %d: %s", LOADS[i], buckets.get(i))
            .isCloseTo(spec, within(spec * 0.05));
        assertThat(buckets.get(i).path("baseline_tokens_per_second_per_request").asDouble())
            .isCloseTo(plain, within(plain * 0.05));
      }
      // 1.93x at one request, 1.10x at 16, 0.94x at 32: pays up to the 16-31 bucket.
      assertThat(speedup(16)).isGreaterThan(1);
      assertThat(speedup(32)).isLessThan(1);
      assertThat(speedup.path("pays_up_to_running").asInt()).isEqualTo(31);

      // Advice by load: in every bucket the k it picks is within 2 % of the best k the step-time
      // model allows (S_j = E_j (b + pR) / (b + pR(1 + j) + dj), j = 0..3), and it predicts that
      // k's speed-up within 5 %.
      JsonNode schedule = new ObjectMapper().readTree(r.out()).path("advice_by_load");
      assertThat(schedule.path("schedule")).as(schedule.toString()).hasSize(LOADS.length);
      for (int i = 0; i < LOADS.length; i++) {
        JsonNode e = schedule.path("schedule").get(i);
        double best = 1;
        for (int j = 1; j <= 3; j++) {
          best = Math.max(best, speedupAt(LOADS[i], j));
        }
        int k = e.path("k").asInt();
        double chosen = k == 0 ? 1 : speedupAt(LOADS[i], k);
        assertThat(chosen).as("load %d: %s", LOADS[i], e).isGreaterThan(best * 0.98);
        assertThat(e.path("expected_speedup").asDouble()).isCloseTo(chosen, within(chosen * 0.05));
      }
      // At one running request all three drafts pay; at 32 one draft does, three cost.
      assertThat(schedule.path("schedule").get(0).path("k").asInt()).isEqualTo(3);
      assertThat(schedule.path("schedule").get(LOADS.length - 1).path("k").asInt()).isEqualTo(1);
      JsonNode vllm = schedule.path("vllm").path("num_speculative_tokens_per_batch_size");
      assertThat(vllm.get(0).get(0).asInt()).isEqualTo(1);
      assertThat(vllm.get(vllm.size() - 1).get(2).asInt()).isEqualTo(1);
      assertThat(schedule.path("trtllm").path("draft_len_schedule").path("1").asInt()).isEqualTo(3);
    }
  }
}
