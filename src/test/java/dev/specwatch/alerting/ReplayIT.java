package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.cli.CliRunner;
import dev.specwatch.model.Engine;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `specwatch replay` and `specwatch advise` on history backfilled into a real Prometheus with
 * promtool: qwen healthy (0.7) for 2h, regressed (0.3) for 1h, healthy again, ending now.
 */
class ReplayIT {
  // Set once before the tests: the history is made relative to its own start, t0.
  static Instant end;
  static Instant t0;
  static PrometheusServer prometheus;

  @TempDir Path dir;

  @BeforeAll
  static void backfill() throws Exception {
    end = Instant.now().truncatedTo(ChronoUnit.MINUTES).minusSeconds(600);
    t0 = end.minus(Duration.ofHours(7));
    List<Double> healthy = List.of(0.9, 0.7, 0.5);
    Scenario scenario =
        new Scenario(
            "replay-it",
            List.of(
                new ModelScenario(
                    "it/qwen",
                    Engine.VLLM,
                    1,
                    List.of(
                        new Phase(
                            "healthy", Duration.ofHours(2), 2, 256, 1024, 3, healthy, false, 12.8),
                        new Phase(
                            "regressed",
                            Duration.ofHours(1),
                            2,
                            256,
                            1024,
                            3,
                            List.of(0.5, 0.3, 0.1),
                            false,
                            12.8),
                        new Phase("recovered", null, 2, 256, 1024, 3, healthy, false, 12.8)),
                    false)));
    Simulator sim = new Simulator(scenario, Clock.fixed(t0, ZoneOffset.UTC));
    prometheus =
        PrometheusServer.builder()
            .history(sim.openMetricsHistory(t0, end, Duration.ofMinutes(1)))
            .start();
  }

  @AfterAll
  static void stop() {
    if (prometheus != null) {
      prometheus.close();
    }
  }

  private Path config() throws Exception {
    return config("");
  }

  private Path config(String more) throws Exception {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        dir.resolve("alerts/qwen.yaml"),
        "recipe: qwen\n"
            + "match: {model_name: it/qwen}\nnum_speculative_tokens: 3\nmin_drafts: 10\n"
            + "for: 5m\nkeep_firing_for: 5m\nthresholds: {acceptance_rate: {below: 0.45}}\n"
            + more);
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(
        config,
        "prometheus: {url: \""
            + prometheus.baseUri()
            + "\"}\n"
            + "evaluation: {interval: 1m, window: 5m}\npolicies: alerts\nstate: {dir: state}\n");
    return config;
  }

  @Test
  void listsTheAlertThatWouldHaveFiredAndResolvedWithoutTouchingState() throws Exception {
    Path config = config();
    CliRunner.Result r = replay(config, "--output", "json");
    assertThat(r.exit()).as(r.err()).isZero();
    var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    assertThat(json.path("steps").asInt()).isEqualTo(331);
    var transitions = json.path("transitions");
    assertThat(transitions).hasSize(2);
    assertThat(transitions.get(0).path("event").asText()).isEqualTo("firing");
    assertThat(transitions.get(0).path("alert_id").asText()).isEqualTo("qwen/acceptance_rate");
    Instant fired = Instant.parse(transitions.get(0).path("at").asText());
    Instant resolved = Instant.parse(transitions.get(1).path("at").asText());
    assertThat(transitions.get(1).path("event").asText()).isEqualTo("resolved");
    // Regression at 2h: the 5m window crosses 0.45 within it, then `for: 5m`.
    assertThat(fired).isBetween(t0.plus(Duration.ofMinutes(125)), t0.plus(Duration.ofMinutes(132)));
    // Recovery at 3h: clears within the window, then keep_firing_for 5m.
    assertThat(resolved)
        .isBetween(t0.plus(Duration.ofMinutes(185)), t0.plus(Duration.ofMinutes(192)));
    assertThat(Files.exists(dir.resolve("state/alerts.json"))).as("no daemon state").isFalse();

    CliRunner.Result text = replay(config);
    assertThat(text.out()).contains("replayed 331 evaluations").contains("1 firing, 1 resolved");
  }

  @Test
  void aRecurringMaintenanceWindowHoldsTheFiringUntilItEnds() throws Exception {
    // Every day from 2h to 2h30 into the history (UTC wall clock; split at midnight if it
    // passes it): the regression fires inside it and is still firing when it ends.
    Instant from = t0.plus(Duration.ofHours(2));
    Instant until = t0.plus(Duration.ofMinutes(150));
    String times =
        from.atZone(ZoneOffset.UTC).toLocalDate().equals(until.atZone(ZoneOffset.UTC).toLocalDate())
            ? range(from, until)
            : range(from, null) + ", " + range(null, until);
    Path config = config("maintenance:\n  - {comment: batch, times: [" + times + "]}\n");
    CliRunner.Result r = replay(config, "--output", "json");
    assertThat(r.exit()).as(r.err()).isZero();
    var transitions =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out()).path("transitions");
    assertThat(transitions).hasSize(3);
    assertThat(transitions.get(0).path("event").asText()).isEqualTo("firing");
    assertThat(transitions.get(0).path("silenced").asBoolean()).isTrue();
    // The window's end: the alert is still firing, so it is notified now.
    assertThat(transitions.get(1).path("event").asText()).isEqualTo("firing");
    assertThat(transitions.get(1).path("silenced").asBoolean()).isFalse();
    assertThat(transitions.get(1).path("reason").asText()).endsWith("(silence ended)");
    assertThat(Instant.parse(transitions.get(1).path("at").asText())).isEqualTo(until);
    assertThat(transitions.get(2).path("event").asText()).isEqualTo("resolved");
    assertThat(transitions.get(2).path("silenced").asBoolean()).isFalse();

    CliRunner.Result text = replay(config);
    assertThat(text.out())
        .contains("[in a maintenance window: not notified]")
        .contains("2 firing, 1 resolved; 1 of them in maintenance windows, not notified");
  }

  /** {@code specwatch replay} from 30 minutes to 6 hours into the history, every minute. */
  private static CliRunner.Result replay(Path config, String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "replay",
                "--config",
                config.toString(),
                "--from",
                t0.plus(Duration.ofMinutes(30)).toString(),
                "--to",
                t0.plus(Duration.ofHours(6)).toString(),
                "--step",
                "1m"));
    args.addAll(List.of(more));
    return CliRunner.run(args.toArray(String[]::new));
  }

  /** A {@code times} entry from {@code a} (or 00:00) to {@code b} (or 24:00), UTC. */
  private static String range(Instant a, Instant b) {
    java.time.format.DateTimeFormatter hhmm = java.time.format.DateTimeFormatter.ofPattern("HH:mm");
    return "{start_time: \""
        + (a == null ? "00:00" : hhmm.format(a.atZone(ZoneOffset.UTC)))
        + "\", end_time: \""
        + (b == null ? "24:00" : hhmm.format(b.atZone(ZoneOffset.UTC)))
        + "\"}";
  }

  @Test
  void advisesOnMeasuredPositions() throws Exception {
    CliRunner.Result r =
        CliRunner.run(
            "advise",
            "--config",
            config().toString(),
            "--recipe",
            "qwen",
            "--window",
            "1h",
            "--draft-cost",
            "0.05");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("   3         3.10")
        .contains("(current)")
        .contains("(extrapolated)")
        .contains("recommended: num_speculative_tokens=");
  }
}
