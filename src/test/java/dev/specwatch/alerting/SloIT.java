package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.cli.CliRunner;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Engine;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.sim.ModelScenario;
import dev.specwatch.sim.Phase;
import dev.specwatch.sim.Scenario;
import dev.specwatch.sim.Simulator;
import dev.specwatch.testing.PrometheusServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An acceptance SLO on backfilled history: 6h healthy, then 90 minutes below target, ending at the
 * evaluation time. Every slice of the last hour misses, so the fast pair burns (100x against a
 * 0.48x threshold for a 1-day period) and `slo_burn` fires at once, as critical.
 */
class SloIT {
  @TempDir Path dir;

  @Test
  void reportsComplianceBudgetAndBurnAndFiresTheFastBurnAlert() throws Exception {
    Instant end = Instant.now().truncatedTo(ChronoUnit.MINUTES).minusSeconds(300);
    Instant t0 = end.minus(Duration.ofMinutes(450));
    List<Double> healthy = List.of(0.9, 0.7, 0.5);
    Scenario scenario =
        new Scenario(
            "slo-it",
            List.of(
                new ModelScenario(
                    "it/slo",
                    Engine.VLLM,
                    1,
                    List.of(
                        new Phase(
                            "healthy", Duration.ofHours(6), 2, 256, 1024, 3, healthy, false, 12.8),
                        new Phase(
                            "regressed",
                            null,
                            2,
                            256,
                            1024,
                            3,
                            List.of(0.5, 0.3, 0.1),
                            false,
                            12.8)),
                    false)));
    Simulator sim = new Simulator(scenario, Clock.fixed(t0, ZoneOffset.UTC));
    try (PrometheusServer prometheus =
        PrometheusServer.builder()
            .history(sim.openMetricsHistory(t0, end, Duration.ofMinutes(1)))
            .start()) {
      Files.createDirectories(dir.resolve("alerts"));
      Files.writeString(
          dir.resolve("alerts/slo.yaml"),
          "recipe: slo\n"
              + "match: {model_name: it/slo}\nnum_speculative_tokens: 3\nmin_drafts: 10\n"
              + "slo: {objective: 0.99, acceptance_rate: 0.45, slice: 5m, period: 1d}\n");
      Path config = dir.resolve("specwatch.yaml");
      Files.writeString(
          config,
          "prometheus: {url: \""
              + prometheus.baseUri()
              + "\"}\n"
              + "policies: alerts\nstate: {dir: state}\n");

      CliRunner.Result r =
          CliRunner.run(
              "check", "--config", config.toString(), "--output", "json", "--time", end.toString());
      JsonNode recipe = new ObjectMapper().readTree(r.out()).path("recipes").get(0);
      assertThat(recipe.path("advice").path("recommended_num_speculative_tokens").asInt())
          .isBetween(1, 5);
      JsonNode slo = recipe.path("slo");
      assertThat(slo.path("objective").asDouble()).isEqualTo(0.99);
      // 90 of 450 active minutes missed the target: compliance 0.8, the budget is spent 20 times.
      assertThat(slo.path("compliance").asDouble()).isCloseTo(0.8, within(0.02));
      assertThat(slo.path("budget_remaining").asDouble()).isCloseTo(-19, within(2.0));
      assertThat(slo.path("burn_rates").path("1h").asDouble()).isCloseTo(100, within(1.0));
      assertThat(slo.path("burning").path("long_window").asText()).isEqualTo("1h");
      assertThat(slo.path("burning").path("severity").asText()).isEqualTo("critical");

      SpecwatchConfig c = new ConfigLoader(k -> null).load(config);
      Evaluation e =
          new Evaluator(
                  new PrometheusClient(PrometheusSettings.of(prometheus.baseUri())),
                  Clock.systemUTC())
              .evaluate(c.policies(), Duration.ofMinutes(5), Optional.of(end));
      AlertEngine.Step step =
          new AlertEngine(SpecwatchConfig.Alerting.defaults())
              .step(AlertState.empty(), c.policies(), e, List.of());
      assertThat(step.transitions())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.alertId()).isEqualTo("slo/slo_burn");
                assertThat(t.kind()).isEqualTo(Transition.Kind.FIRING);
                assertThat(t.severity()).isEqualTo(dev.specwatch.model.Severity.CRITICAL);
                assertThat(t.reason()).startsWith("SLO burn: 100.0x over 1h");
              });
    }
  }
}
