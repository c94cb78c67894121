package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.ha.Database;
import dev.specwatch.ha.PgStateStore;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.PostgresDatabase;
import dev.specwatch.testing.Transitions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lowering {@code state.shards}: an alert firing in a shard that no longer exists is resolved (one
 * notification) and the shard's row deleted when a replica starts, instead of staying red forever.
 */
class ShardRetirementIT {
  @TempDir Path dir;

  @Test
  void aShardBeyondTheCountIsResolvedAndDeletedAtStart() throws Exception {
    try (PostgresDatabase pg = PostgresDatabase.create()) {
      Instant t = Instant.now().minusSeconds(600);
      try (Database db =
          Database.open(
              new SpecwatchConfig.Database(
                  pg.url(), Optional.of("postgres"), Optional.empty(), 8, Duration.ofSeconds(2)),
              "before")) {
        PgStateStore shard5 = new PgStateStore(db, 5, Clock.systemUTC());
        shard5.load();
        ActiveAlert firing = Transitions.firingAcceptance(t);
        shard5.save(
            new AlertState(
                AlertState.VERSION,
                Map.of(firing.id(), firing),
                null,
                100,
                List.of(),
                Map.of(),
                Map.of()));
      }
      Files.createDirectories(dir.resolve("alerts"));
      Files.writeString(
          dir.resolve("alerts/qwen.yaml"),
          "recipe: qwen\nmatch: {model_name: qwen}\nnum_speculative_tokens: 3\n"
              + "thresholds: {acceptance_rate: {below: 0.45}}\n");
      Path config =
          DaemonProcess.Config.of(java.net.URI.create("http://127.0.0.1:9"))
              .postgres(pg.url(), null, 2, null)
              .log()
              .write(dir.resolve("specwatch.yaml"));
      Daemon daemon = new Daemon(config, new ConfigLoader(k -> null), Clock.systemUTC());
      daemon.start();
      daemon.stop(Duration.ofSeconds(10));

      assertThat(pg.queryOne("SELECT count(*) FROM sw_alert_state WHERE shard >= 2"))
          .isEqualTo("0");
      assertThat(
              pg.queryOne(
                  "SELECT string_agg(kind, ',') FROM sw_transition"
                      + " WHERE alert_id = 'qwen/acceptance_rate'"))
          .isEqualTo("RESOLVED");
      assertThat(
              pg.queryOne(
                  "SELECT count(*) FROM sw_outbox WHERE id LIKE '%-resolved-log|qwen/acceptance_rate'"))
          .as("one resolve queued for the log notifier")
          .isEqualTo("1");
    }
  }
}
