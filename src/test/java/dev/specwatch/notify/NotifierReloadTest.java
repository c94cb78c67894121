package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.Silence;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.store.StateHealth;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.FakeSocketMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload keeps the notifiers whose config did not change: the same notifier, its delivery worker
 * and its Socket Mode connection, taken over by the new config's service; only a changed notifier
 * is built again. Before, every reload rebuilt every notifier and reconnected Socket Mode.
 */
class NotifierReloadTest {
  @TempDir Path dir;

  static final Silencer NO_SILENCES =
      new Silencer() {
        @Override
        public Silence addSilence(
            String recipe, Optional<String> rule, Duration d, String comment, String author) {
          throw new UnsupportedOperationException();
        }

        @Override
        public boolean expireSilence(String id) {
          return false;
        }
      };

  private SpecwatchConfig config(FakeSlackApi slack, String hook) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        dir.resolve("alerts/m.yaml"),
        "recipe: m\nmatch: {job: vllm, model_name: m}\nnum_speculative_tokens: 3\n");
    Files.writeString(
        dir.resolve("specwatch.yaml"),
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\nstate: {dir: state}\n"
            + "notifiers:\n  - {type: slack, token: xoxb-r, app_token: xapp-1-r, channel: \"#m\","
            + " api_url: \""
            + slack.apiUrl()
            + "\"}\n  - {type: webhook, url: \""
            + hook
            + "\"}\n");
    return new ConfigLoader(k -> null).load(dir.resolve("specwatch.yaml"));
  }

  private static long threads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith(prefix))
        .count();
  }

  @Test
  void unchangedNotifiersKeepRunningAcrossReloadsAndNoThreadLeaks() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi();
        FakeSocketMode socket = new FakeSocketMode()) {
      slack.socketMode(socket.url());
      SpecwatchConfig c = config(slack, "http://127.0.0.1:1/a");
      NotificationStores stores =
          NotificationStores.open(c.stateDir(), new StateHealth(c.stateDir()), Clock.systemUTC());
      NotificationService first =
          new NotificationService(c, stores, Clock.systemUTC(), DeliveryListener.NONE, NO_SILENCES);
      first.start();
      assertThat(socket.awaitClient(30)).isTrue();
      int before = Thread.activeCount();
      long outboxThreads = threads("specwatch-outbox-");

      NotificationService current = first;
      for (int i = 0; i < 200; i++) {
        NotificationService next =
            new NotificationService(
                config(slack, "http://127.0.0.1:1/a"),
                stores,
                Clock.systemUTC(),
                DeliveryListener.NONE,
                NO_SILENCES,
                current);
        next.takeOver();
        current.stop(Duration.ofSeconds(5));
        next.start();
        assertThat(next.kept()).isEqualTo(Set.of("slack", "webhook"));
        current = next;
      }
      assertThat(current.notifiers().get("slack"))
          .as("the same notifier after 200 reloads")
          .isSameAs(first.notifiers().get("slack"));
      assertThat(socket.opened()).as("before: one Socket Mode connection per reload").isEqualTo(1);
      assertThat(threads("specwatch-outbox-")).isEqualTo(outboxThreads).isEqualTo(2);
      assertThat(Thread.activeCount())
          .as("threads flat over 200 reloads")
          .isLessThanOrEqualTo(before + 2);

      // A changed webhook URL: that notifier alone is built again.
      NotificationService changed =
          new NotificationService(
              config(slack, "http://127.0.0.1:1/b"),
              stores,
              Clock.systemUTC(),
              DeliveryListener.NONE,
              NO_SILENCES,
              current);
      changed.takeOver();
      current.stop(Duration.ofSeconds(5));
      changed.start();
      assertThat(changed.kept()).containsExactly("slack");
      assertThat(changed.notifiers().get("webhook"))
          .isNotSameAs(current.notifiers().get("webhook"));
      assertThat(threads("specwatch-outbox-")).isEqualTo(2);
      changed.stop(Duration.ofSeconds(5));
      assertThat(threads("specwatch-outbox-")).as("all stopped at the end").isZero();
    }
  }
}
