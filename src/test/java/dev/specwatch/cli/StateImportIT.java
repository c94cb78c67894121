package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.FileStateStore;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.alerting.Transition;
import dev.specwatch.alerting.TransitionHistory;
import dev.specwatch.ha.Cluster;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.testing.PostgresDatabase;
import dev.specwatch.testing.Transitions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code specwatch state import}: a single daemon's state directory into the shared database. */
class StateImportIT {
  @TempDir Path dir;

  @Test
  void aStateDirectoryMovesIntoTheDatabaseWithItsFiringAlertAtItsRecipesShard() throws Exception {
    Path state = dir.resolve("state");
    Instant t = Instant.now().minusSeconds(600);
    ActiveAlert firing = Transitions.firingAcceptance(t);
    new FileStateStore(state, Clock.systemUTC())
        .save(
            new AlertState(
                AlertState.VERSION,
                Map.of(firing.id(), firing),
                null,
                42,
                List.of(),
                Map.of(),
                Map.of()));
    Transition fired =
        Transitions.acceptance(41, "qwen/acceptance_rate", Transition.Kind.FIRING, t);
    new TransitionHistory(state).append(List.of(fired));
    new SilenceStore(state)
        .add(
            new Silence("s1", "other", Optional.empty(), t, t.plusSeconds(7200), "upgrade", "ops"));
    new SlackThreadStore(state)
        .put(
            "qwen/acceptance_rate", new SlackThreadStore.SlackThread("C1", "1700000000.000001", t));

    try (PostgresDatabase pg = PostgresDatabase.create()) {
      Files.createDirectories(dir.resolve("alerts"));
      Files.writeString(
          dir.resolve("alerts/qwen.yaml"),
          "recipe: qwen\nmatch: {model_name: qwen}\nnum_speculative_tokens: 3\n");
      Path config = dir.resolve("ha.yaml");
      Files.writeString(
          config,
          "prometheus: {url: \"http://127.0.0.1:9\"}\npolicies: alerts\n"
              + "state: {backend: postgres, url: \""
              + pg.url()
              + "\", user: postgres, shards: 3}\n");

      MainTest.Result r =
          MainTest.run("state", "import", "--from", state.toString(), "-c", config.toString());
      assertThat(r.exit()).as(r.err()).isZero();
      assertThat(r.out())
          .contains(
              "1 alert(s) (1 firing) in 3 shard(s), 1 transition(s), 1 silence(s), 0 pending"
                  + " notification(s), 1 Slack message(s), 0 digest week(s)");
      int shard = Cluster.shardOf("qwen", 3);
      assertThat(pg.queryOne("SELECT state FROM sw_alert_state WHERE shard = " + shard))
          .contains("qwen/acceptance_rate");
      assertThat(pg.queryOne("SELECT count(*) FROM sw_alert_state")).isEqualTo("3");
      assertThat(pg.queryOne("SELECT count(*) FROM sw_transition")).isEqualTo("1");
      assertThat(pg.queryOne("SELECT count(*) FROM sw_silence")).isEqualTo("1");
      assertThat(
              pg.queryOne(
                  "SELECT body FROM sw_document WHERE namespace = 'slack-messages'"
                      + " AND key = 'qwen/acceptance_rate'"))
          .contains("1700000000.000001");

      MainTest.Result again =
          MainTest.run("state", "import", "--from", state.toString(), "-c", config.toString());
      assertThat(again.exit()).isEqualTo(2);
      assertThat(again.err()).contains("the database has alert state already (3 shard(s))");
    }
  }
}
