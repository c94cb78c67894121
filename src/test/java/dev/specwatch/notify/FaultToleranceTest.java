package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.store.StateHealth;
import dev.specwatch.testing.FakeSlackApi;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delivery under faults, with the real Slack SDK against a local Slack Web API: a delivery whose
 * outcome cannot be recorded is not sent again; a reload while a post is in flight does not post
 * twice; a receiver that hangs delays no other notifier. Each failed before the fix (issue #12: 60
 * posts in 65 s; two posts on reload; every notifier blocked).
 */
class FaultToleranceTest {
  @TempDir Path dir;
  final Clock clock = Clock.systemUTC();

  SpecwatchConfig config(String notifiers) throws IOException {
    Files.writeString(
        dir.resolve("specwatch.yaml"),
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\nstate: {dir: state}\n"
            + "notifiers:\n"
            + notifiers,
        StandardCharsets.UTF_8);
    Files.createDirectories(dir.resolve("alerts"));
    return new ConfigLoader(k -> null).load(dir.resolve("specwatch.yaml"));
  }

  /** One message per alert (grouping off): these faults are of one delivery. */
  static String slack(String name, FakeSlackApi api) {
    return "  - {type: slack, name: "
        + name
        + ", token: xoxb-fault-test, channel: \"#"
        + name
        + "\", api_url: \""
        + api.apiUrl()
        + "\", grouping: {group_wait: 0s}}\n";
  }

  static Transition transition(long seq, Transition.Kind kind) {
    Instant now = Instant.now();
    return Transition.builder(AlertKey.parse("qwen/acceptance_rate"), kind, now)
        .sequence(seq)
        .reason(kind == Transition.Kind.FIRING ? "acceptance_rate 0.410 below 0.450" : "recovered")
        .value(0.41)
        .threshold(0.45)
        .window(Duration.ofMinutes(5))
        .since(now.minusSeconds(60))
        .severity(dev.specwatch.model.Severity.WARNING)
        .build();
  }

  static List<String> methods(FakeSlackApi api) {
    return api.calls().stream().map(FakeSlackApi.Call::method).toList();
  }

  @Test
  void aDeliveryWhoseOutcomeCannotBeRecordedIsNotSentAgain() throws Exception {
    try (FakeSlackApi api = new FakeSlackApi()) {
      SpecwatchConfig c = config(slack("slack", api));
      Path state = c.stateDir();
      StateHealth health = new StateHealth(state);
      NotificationStores stores = NotificationStores.open(state, health, clock);
      NotificationService notifications =
          new NotificationService(c, stores, clock, DeliveryListener.NONE);
      notifications.start();
      api.hang();
      notifications.sink().deliver(transition(7, Transition.Kind.FIRING));
      await().atMost(Duration.ofSeconds(10)).until(() -> api.calls().size() == 1);

      // The state directory goes away while Slack holds the post: root ignores permissions, so
      // a regular file takes the directory's place (writes fail with "Not a directory").
      Path moved = dir.resolve("state.moved");
      Files.move(state, moved);
      Files.writeString(state, "not a directory");
      api.release();

      await().atMost(Duration.ofSeconds(10)).until(() -> health.problem().isPresent());
      assertThat(health.problem().get()).startsWith("state dir " + state.toAbsolutePath());
      // Passes keep running (about one a second) while the directory is unwritable.
      await()
          .during(Duration.ofSeconds(4))
          .atMost(Duration.ofSeconds(6))
          .until(() -> api.calls().size() == 1);

      Files.delete(state);
      Files.move(moved, state);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(stores.outbox().pending()).isEmpty());
      await().atMost(Duration.ofSeconds(10)).until(() -> health.problem().isEmpty());
      assertThat(methods(api)).containsExactly("chat.postMessage");
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .untilAsserted(
              () ->
                  assertThat(Files.readString(state.resolve("slack-messages.json")))
                      .as("the message map written once the directory is back")
                      .contains("qwen/acceptance_rate"));
      notifications.close();
    }
  }

  @Test
  void aReloadWhileAPostIsInFlightPostsOnceAndTheResolveUpdatesIt() throws Exception {
    try (FakeSlackApi api = new FakeSlackApi()) {
      SpecwatchConfig c = config(slack("slack", api));
      NotificationStores stores =
          NotificationStores.open(c.stateDir(), new StateHealth(c.stateDir()), clock);
      NotificationService old = new NotificationService(c, stores, clock, DeliveryListener.NONE);
      old.start();
      api.hang();
      old.sink().deliver(transition(7, Transition.Kind.FIRING));
      await().atMost(Duration.ofSeconds(10)).until(() -> api.calls().size() == 1);

      // Reload: the old workers get a short bound, the new ones start while the post hangs.
      old.stop(Duration.ofMillis(200));
      NotificationService fresh = new NotificationService(c, stores, clock, DeliveryListener.NONE);
      fresh.start();
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(() -> api.calls().size() == 1);
      api.release();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(stores.outbox().pending()).isEmpty());

      fresh.sink().deliver(transition(8, Transition.Kind.RESOLVED));
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(methods(api))
                      .containsExactly("chat.postMessage", "chat.update", "chat.postMessage"));
      assertThat(api.calls().get(1).params()).containsEntry("ts", "1764504000.1000");
      fresh.close();
    }
  }

  @Test
  void oneHangingReceiverDelaysNoOtherNotifier() throws Exception {
    try (FakeSlackApi stuck = new FakeSlackApi();
        FakeSlackApi fine = new FakeSlackApi()) {
      SpecwatchConfig c = config(slack("stuck", stuck) + slack("fine", fine));
      NotificationService notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      notifications.start();
      stuck.hang();
      notifications.sink().deliver(transition(7, Transition.Kind.FIRING));
      await().atMost(Duration.ofSeconds(10)).until(() -> stuck.calls().size() == 1);
      await().atMost(Duration.ofSeconds(10)).until(() -> fine.calls().size() == 1);
      notifications.sink().deliver(transition(8, Transition.Kind.RESOLVED));
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(methods(fine))
                      .containsExactly("chat.postMessage", "chat.update", "chat.postMessage"));
      assertThat(stuck.calls()).as("still waiting on its first post").hasSize(1);
      stuck.release();
      notifications.close();
    }
  }
}
