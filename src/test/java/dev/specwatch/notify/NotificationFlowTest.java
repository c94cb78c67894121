package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertService;
import dev.specwatch.alerting.TransitionSink;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.prometheus.Sample;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.testing.FakePrometheus;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engine to Slack through the durable pieces, across "crashes" (new instances on the same state
 * directory): one post per alert, the resolve updates the same message, nothing lost when the
 * process dies between recording a transition and delivering it. Prometheus is faked here (a unit
 * test); the daemon's end-to-end test uses a real one.
 */
class NotificationFlowTest {
  @TempDir Path dir;

  final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
  final AtomicReference<Double> acceptance = new AtomicReference<>(0.8);

  List<Sample> answer(String promql) {
    Map<String, String> labels = Map.of("job", "vllm", "model_name", "m");
    if (promql.contains("increase(")) {
      return List.of(new Sample(labels, clock.instant(), 9000));
    }
    if (promql.contains("/")
        && promql.contains("accepted_tokens_total")
        && !promql.startsWith("1 + ")) {
      return List.of(new Sample(labels, clock.instant(), acceptance.get()));
    }
    return List.of();
  }

  SpecwatchConfig config(FakeSlackApi slack) throws IOException {
    return config(
        "{type: slack, token: xoxb-t, channel: \"#mtp\", api_url: \""
            + slack.apiUrl()
            // One message per alert: grouping has SlackGroupingTest.
            + "\", grouping: {group_wait: 0s}}");
  }

  /** Recipe m, alerting below 0.45 at once, to the one notifier {@code notifier} (YAML flow). */
  SpecwatchConfig config(String notifier) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        dir.resolve("alerts/m.yaml"),
        "recipe: m\nmatch: {job: vllm, model_name: m}\n"
            + "num_speculative_tokens: 3\nfor: 0s\nkeep_firing_for: 0s\n"
            + "thresholds: {acceptance_rate: {below: 0.45}}\n");
    Files.writeString(
        dir.resolve("specwatch.yaml"),
        "prometheus: {url: http://127.0.0.1:9090}\n"
            + "policies: alerts\nstate: {dir: state}\nnotifiers:\n  - "
            + notifier
            + "\n");
    return new ConfigLoader(k -> null).load(dir.resolve("specwatch.yaml"));
  }

  AlertService service(SpecwatchConfig c, TransitionSink sink) throws IOException {
    return AlertService.builder(
            new Evaluator(FakePrometheus.of(this::answer), clock),
            new AlertEngine(SpecwatchConfig.Alerting.defaults()),
            clock)
        .files(c.stateDir())
        .sink(sink)
        .build();
  }

  /**
   * An Alertmanager re-send may take its receiver's whole timeout: it runs on the service's own
   * thread, so the evaluation that asked for it (holding the lock reload and stop wait for) goes
   * on. The receiver holds the re-send until the test has seen {@code afterCycle} return.
   */
  @Test
  void alertmanagerResendsRunOffTheEvaluationThread() throws Exception {
    java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean hold =
        new java.util.concurrent.atomic.AtomicBoolean();
    com.sun.net.httpserver.HttpServer receiver =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    receiver.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    receiver.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          if (hold.get()) {
            held.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    receiver.start();
    try {
      SpecwatchConfig c =
          config(
              "{type: alertmanager, url: \"http://127.0.0.1:"
                  + receiver.getAddress().getPort()
                  + "\"}");
      NotificationService notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      try {
        AlertService alerts = service(c, notifications.sink());
        acceptance.set(0.3);
        alerts.runOnce(c.policies(), Duration.ofMinutes(5));
        notifications.deliverOnce(); // the firing alert, answered at once
        hold.set(true);
        clock.advance(Duration.ofSeconds(30));
        alerts.runOnce(c.policies(), Duration.ofMinutes(5));

        notifications.afterCycle(alerts.state());

        assertThat(held.await(30, java.util.concurrent.TimeUnit.SECONDS))
            .as("the re-send reached the receiver")
            .isTrue();
        assertThat(notifications.resending())
            .as("afterCycle returned with its re-send still waiting on the receiver")
            .isTrue();
      } finally {
        release.countDown();
        notifications.stop(Duration.ofSeconds(5));
      }
    } finally {
      receiver.stop(0);
    }
  }

  @Test
  void onePostPerAlertAcrossRestartsAndTheResolveUpdatesIt() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SpecwatchConfig c = config(slack);
      NotificationService notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      AlertService alerts = service(c, notifications.sink());
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      acceptance.set(0.3);
      clock.advance(Duration.ofSeconds(30));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.deliverOnce();
      assertThat(slack.calls())
          .extracting(FakeSlackApi.Call::method)
          .containsExactly("chat.postMessage");
      String ts =
          new SlackThreadStore(c.stateDir())
              .of("slack", false)
              .get("m/acceptance_rate")
              .orElseThrow()
              .ts();

      // kill -9 and restart: still firing, nothing new is posted.
      notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      alerts = service(c, notifications.sink());
      for (int i = 0; i < 3; i++) {
        clock.advance(Duration.ofSeconds(30));
        alerts.runOnce(c.policies(), Duration.ofMinutes(5));
        notifications.afterCycle(alerts.state());
        notifications.deliverOnce();
      }
      assertThat(slack.calls()).hasSize(1);

      // Recovery: the original message is updated and the thread gets a reply.
      acceptance.set(0.8);
      clock.advance(Duration.ofSeconds(30));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.deliverOnce();
      clock.advance(Duration.ofSeconds(1)); // the edit, then the reply a second later
      notifications.deliverOnce();
      assertThat(slack.calls())
          .extracting(FakeSlackApi.Call::method)
          .containsExactly("chat.postMessage", "chat.update", "chat.postMessage");
      assertThat(slack.calls().get(1).params()).containsEntry("ts", ts);
      assertThat(slack.calls().get(2).params()).containsEntry("thread_ts", ts);
    }
  }

  @Test
  void aPagerDutyNotifierTriggersRepeatsAndResolvesThroughTheUnchangedService() throws Exception {
    try (okhttp3.mockwebserver.MockWebServer pd = new okhttp3.mockwebserver.MockWebServer()) {
      for (int i = 0; i < 3; i++) {
        pd.enqueue(new okhttp3.mockwebserver.MockResponse().setResponseCode(202));
      }
      SpecwatchConfig c =
          config(
              "{type: pagerduty, routing_key: Rplanted0key, repeat_interval: 1h, url: \""
                  + pd.url("/v2/enqueue")
                  + "\"}");
      NotificationService notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      AlertService alerts = service(c, notifications.sink());
      acceptance.set(0.3);
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.afterCycle(alerts.state());
      notifications.deliverOnce();
      for (int minutes = 0; minutes < 70; minutes += 10) {
        clock.advance(Duration.ofMinutes(10));
        alerts.runOnce(c.policies(), Duration.ofMinutes(5));
        notifications.afterCycle(alerts.state());
        notifications.deliverOnce();
      }
      acceptance.set(0.8);
      clock.advance(Duration.ofSeconds(30));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.afterCycle(alerts.state());
      notifications.deliverOnce();

      List<String> events = new java.util.ArrayList<>();
      while (pd.getRequestCount() > events.size()) {
        com.fasterxml.jackson.databind.JsonNode e =
            new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(pd.takeRequest().getBody().readUtf8());
        events.add(e.path("event_action").asText() + " " + e.path("dedup_key").asText());
      }
      assertThat(events)
          .as("one trigger, one repeat past the hour, one resolve, one dedup key")
          .containsExactly(
              "trigger specwatch/m/acceptance_rate",
              "trigger specwatch/m/acceptance_rate",
              "resolve specwatch/m/acceptance_rate");
    }
  }

  /** Two Slack notifiers (two channels, two bot tokens), one alert, grouping off. */
  private SpecwatchConfig twoSlackNotifiers(FakeSlackApi slack) throws IOException {
    String common = ", api_url: \"" + slack.apiUrl() + "\", grouping: {group_wait: 0s}}";
    return config(
        "{type: slack, name: team-a, token: xoxb-a, channel: \"#team-a\""
            + common
            + "\n  - {type: slack, name: team-b, token: xoxb-b, channel: \"#team-b\""
            + common);
  }

  /** What one channel received, as {@code method token ts|thread_ts}, in order. */
  private static List<String> callsTo(FakeSlackApi slack, String channel) {
    return slack.calls().stream()
        .filter(call -> channel.equals(call.params().get("channel")))
        .map(
            call ->
                call.method()
                    + " "
                    + call.authorization()
                    + (call.params().containsKey("ts") ? " ts" : "")
                    + (call.params().containsKey("thread_ts") ? " thread" : ""))
        .toList();
  }

  @Test
  void twoSlackNotifiersEachKeepTheirOwnMessage() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SpecwatchConfig c = twoSlackNotifiers(slack);
      NotificationService notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      AlertService alerts = service(c, notifications.sink());
      acceptance.set(0.3);
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.deliverOnce();
      // Past the 4 h repeat interval: one reminder in each channel's own thread.
      clock.advance(Duration.ofHours(4).plusMinutes(1));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.afterCycle(alerts.state());
      notifications.deliverOnce();
      acceptance.set(0.8);
      clock.advance(Duration.ofSeconds(30));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.deliverOnce();
      clock.advance(Duration.ofSeconds(1));
      notifications.deliverOnce();
      clock.advance(Duration.ofSeconds(1));
      notifications.deliverOnce();

      for (String team : List.of("a", "b")) {
        String token = "Bearer xoxb-" + team;
        assertThat(callsTo(slack, "#team-" + team))
            .as(
                "before: #team-a was never resolved and #team-b was edited twice, once with a's"
                    + " token, and got an extra [RESOLVED] post")
            .containsExactly(
                "chat.postMessage " + token,
                "chat.postMessage " + token + " thread",
                "chat.update " + token + " ts",
                "chat.postMessage " + token + " thread");
      }
      assertThat(slack.calls()).hasSize(8);
    }
  }

  @Test
  void aMessageStoredBeforeNotifierScopesBelongsToTheFirstSlackNotifier() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SpecwatchConfig c = twoSlackNotifiers(slack);
      NotificationService notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      AlertService alerts = service(c, notifications.sink());
      acceptance.set(0.3);
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.deliverOnce();
      // What an older version left: team-a's message under the alert id alone, b's forgotten.
      SlackThreadStore raw = new SlackThreadStore(c.stateDir());
      SlackThreadStore.SlackThread a = raw.get("team-a|m/acceptance_rate").orElseThrow();
      raw.remove("team-a|m/acceptance_rate");
      raw.remove("team-b|m/acceptance_rate");
      raw.put("m/acceptance_rate", a);

      notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      alerts = service(c, notifications.sink());
      acceptance.set(0.8);
      clock.advance(Duration.ofSeconds(30));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      for (int i = 0; i < 3; i++) {
        notifications.deliverOnce();
        clock.advance(Duration.ofSeconds(1));
      }
      assertThat(callsTo(slack, "#team-a"))
          .as("the old message is team-a's: edited and replied to")
          .endsWith("chat.update Bearer xoxb-a ts", "chat.postMessage Bearer xoxb-a thread");
      assertThat(callsTo(slack, "#team-b"))
          .as("team-b, which lost its message, posts the resolve anew")
          .containsExactly("chat.postMessage Bearer xoxb-b", "chat.postMessage Bearer xoxb-b");
      assertThat(new SlackThreadStore(c.stateDir()).all()).as("nothing left").isEmpty();
    }
  }

  @Test
  void remindersRepeatWhileFiringAndStopOnceAcknowledgedFromSlack() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SpecwatchConfig c = config(slack);
      NotificationService notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      AlertService alerts = service(c, notifications.sink());
      acceptance.set(0.3);
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.deliverOnce();
      // Past the 4 h repeat interval: one reminder in the thread.
      clock.advance(Duration.ofHours(4).plusMinutes(1));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.afterCycle(alerts.state());
      notifications.deliverOnce();
      assertThat(slack.calls()).hasSize(2);
      assertThat(slack.calls().get(1).params()).containsKey("thread_ts");
      // Acknowledged (what the Slack button records): four hours later, no reminder.
      SlackThreadStore threads = new SlackThreadStore(c.stateDir()).of("slack", false);
      SlackThreadStore.SlackThread th = threads.get("m/acceptance_rate").orElseThrow();
      threads.put("m/acceptance_rate", th.acknowledged("Acknowledged by <@U1> 16:01 UTC"));
      notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      alerts = service(c, notifications.sink());
      clock.advance(Duration.ofHours(4).plusMinutes(1));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.afterCycle(alerts.state());
      notifications.deliverOnce();
      assertThat(slack.calls()).hasSize(2);
    }
  }

  @Test
  void aSilencePressedUntilResolvedEndsWhenTheAlertResolves() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      // The buttons (an app token) are what can press it.
      SpecwatchConfig c =
          config(
              "{type: slack, token: xoxb-t, app_token: xapp-1-t, channel: \"#mtp\", api_url: \""
                  + slack.apiUrl()
                  + "\", grouping: {group_wait: 0s}}");
      List<String> expired = new java.util.ArrayList<>();
      Silencer silencer =
          new Silencer() {
            @Override
            public dev.specwatch.alerting.Silence addSilence(
                String recipe,
                java.util.Optional<String> rule,
                Duration duration,
                String comment,
                String author) {
              throw new UnsupportedOperationException();
            }

            @Override
            public boolean expireSilence(String id) {
              expired.add(id);
              return true;
            }
          };
      NotificationStores stores =
          NotificationStores.open(
              c.stateDir(), new dev.specwatch.store.StateHealth(c.stateDir()), clock);
      NotificationService notifications =
          new NotificationService(c, stores, clock, DeliveryListener.NONE, silencer);
      AlertService alerts = service(c, notifications.sink());
      acceptance.set(0.3);
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      notifications.deliverOnce();
      // What the "Silence until resolved" button records on the alert's message.
      SlackThreadStore threads = stores.threads().of("slack", false);
      SlackThreadStore.SlackThread th = threads.get("m/acceptance_rate").orElseThrow();
      threads.put("m/acceptance_rate", th.untilResolved("S1"));
      clock.advance(Duration.ofMinutes(1));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      assertThat(expired).as("still firing").isEmpty();
      acceptance.set(0.8);
      clock.advance(Duration.ofMinutes(1));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      assertThat(expired).containsExactly("S1");
    }
  }

  @Test
  void aTransitionRecordedButNotHandedOverIsDeliveredAfterRestart() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SpecwatchConfig c = config(slack);
      // The process "dies" before the outbox takes the transition: the sink fails.
      AlertService dying =
          service(
              c,
              t -> {
                throw new IOException("killed");
              });
      acceptance.set(0.3);
      dying.runOnce(c.policies(), Duration.ofMinutes(5));
      assertThat(dying.state().queued()).hasSize(1);

      NotificationService notifications = new NotificationService(c, clock, DeliveryListener.NONE);
      AlertService restarted = service(c, notifications.sink());
      assertThat(restarted.state().queued()).as("persisted").hasSize(1);
      clock.advance(Duration.ofSeconds(30));
      AlertService.Cycle cycle = restarted.runOnce(c.policies(), Duration.ofMinutes(5));
      assertThat(cycle.transitions()).as("no new transition: still firing").isEmpty();
      assertThat(cycle.stillQueued()).isZero();
      notifications.deliverOnce();
      assertThat(slack.calls())
          .extracting(FakeSlackApi.Call::method)
          .containsExactly("chat.postMessage");
    }
  }
}
