package dev.specwatch.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.cli.CliRunner;
import dev.specwatch.testing.Fleet;
import dev.specwatch.testing.VictoriaMetricsServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same {@code check} against VictoriaMetrics single-node (Debian's {@code victoria-metrics})
 * and against Prometheus, both scraping the same simulator every second: the same recipe state and
 * the same ratios. Large fleets query VictoriaMetrics, Thanos or Mimir through this API
 * (docs/CONFIG.md lists the URLs).
 */
class VictoriaMetricsIT {
  @TempDir Path dir;

  JsonNode check(URI datasource, Instant at) throws Exception {
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        alerts.resolve("steady.yaml"),
        "recipe: steady\nmatch: {job: vllm, model_name: it/steady-mtp}\n"
            + "num_speculative_tokens: 3\nmin_drafts: 10\n"
            + "thresholds: {acceptance_rate: {below: 0.5}}\n");
    Path config = dir.resolve("specwatch-" + datasource.getPort() + ".yaml");
    Files.writeString(config, "prometheus: {url: \"" + datasource + "\"}\npolicies: alerts\n");
    CliRunner.Result r =
        CliRunner.run(
            "check",
            "--config",
            config.toString(),
            "--output",
            "json",
            "--window",
            "30s",
            "--time",
            at.toString());
    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    return new ObjectMapper().readTree(r.out()).path("recipes").get(0);
  }

  @Test
  void checkGivesTheSameValuesAgainstVictoriaMetricsAsAgainstPrometheus() throws Exception {
    try (Fleet fleet = Fleet.start(Fleet.SCENARIO);
        VictoriaMetricsServer vm =
            VictoriaMetricsServer.start(
                "127.0.0.1:" + fleet.simulator().port(), Duration.ofSeconds(1))) {
      Thread.sleep(45_000); // both hold more than the 30 s window
      Instant at = Instant.now().minusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
      JsonNode prom = check(fleet.prometheus().baseUri(), at);
      JsonNode victoria = check(vm.baseUri(), at);

      assertThat(victoria.path("state").asText())
          .isEqualTo("ok")
          .isEqualTo(prom.path("state").asText());
      JsonNode p = prom.path("signals");
      JsonNode v = victoria.path("signals");
      // Steady traffic: the ratios are the scenario's whatever the scrape phase.
      assertThat(p.path("acceptance_rate").asDouble()).isCloseTo(0.7, within(0.01));
      assertThat(v.path("acceptance_rate").asDouble()).isCloseTo(0.7, within(0.01));
      assertThat(v.path("mean_accepted_length").asDouble())
          .isCloseTo(p.path("mean_accepted_length").asDouble(), within(0.02));
      for (int i = 0; i < 3; i++) {
        assertThat(v.path("position_acceptance").get(i).asDouble())
            .as("position %d", i)
            .isCloseTo(p.path("position_acceptance").get(i).asDouble(), within(0.01));
      }
      // Rates: VictoriaMetrics does not extrapolate increase() to the window's edges.
      double rate = p.path("draft_tokens_per_second").asDouble();
      assertThat(v.path("draft_tokens_per_second").asDouble()).isCloseTo(rate, within(rate * 0.1));
    }
  }
}
