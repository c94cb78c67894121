package dev.specwatch.notify.slack;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Secret;
import dev.specwatch.notify.ChannelPace;
import dev.specwatch.notify.DeliveryListener;
import dev.specwatch.notify.DeliveryResult;
import dev.specwatch.notify.DeliveryWorker;
import dev.specwatch.notify.FileOutbox;
import dev.specwatch.notify.Intent;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.MutableClock;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The official Slack SDK against a local server speaking the Slack Web API, driven through the
 * durable outbox and delivery worker with a hand-moved clock.
 */
class SlackNotifierTest {
  static final String TOKEN = "xoxb-planted-token-9f8e7d";
  static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path state;
  FakeSlackApi slack;
  MutableClock clock;
  FileOutbox outbox;
  DeliveryWorker worker;
  SlackThreadStore threads;
  ListAppender<ILoggingEvent> logs;

  @BeforeEach
  void setUp() throws IOException {
    slack = new FakeSlackApi();
    clock = new MutableClock(T0);
    outbox = new FileOutbox(state);
    threads = new SlackThreadStore(state);
    worker = newWorker();
    logs = new ListAppender<>();
    logs.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
  }

  @AfterEach
  void tearDown() {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
    slack.close();
    String all =
        String.join("\n", logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
    assertThat(all).as("the token is never logged").doesNotContain(TOKEN);
  }

  private SlackNotifier notifier(SlackThreadStore store) {
    return new SlackNotifier(
        new NotifierConfig.Slack(
            "slack",
            Optional.of(Secret.of(TOKEN)),
            Optional.empty(),
            Optional.of("#mtp-alerts"),
            Optional.of(slack.apiUrl()),
            Duration.ofHours(4)),
        new SlackMessages.Urls(
            Optional.of(URI.create("http://grafana:3000")),
            Optional.of(URI.create("http://specwatch:9464"))),
        store,
        clock);
  }

  private DeliveryWorker newWorker() {
    SlackNotifier notifier = notifier(threads);
    return new DeliveryWorker(
        outbox,
        Map.of("slack", notifier),
        clock,
        new Random(1),
        new DeliveryListener() {
          @Override
          public void failed(String notifier) {
            failures.add(notifier);
          }
        });
  }

  /** Notifiers whose attempts failed, as the metrics would count them. */
  private final List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

  static Transition transition(long seq, Transition.Kind kind, Instant at) {
    return Transition.builder(AlertKey.parse("qwen/acceptance_rate"), kind, at)
        .sequence(seq)
        .reason(
            kind == Transition.Kind.FIRING
                ? "acceptance_rate 0.410 below 0.450 <&>"
                : "recovered: acceptance_rate 0.840 above 0.500")
        .value(kind == Transition.Kind.FIRING ? 0.41 : 0.84)
        .threshold(0.45)
        .window(Duration.ofMinutes(5))
        .since(kind == Transition.Kind.FIRING ? T0.minusSeconds(300) : T0)
        .severity(dev.specwatch.model.Severity.WARNING)
        .labels(Map.of("slack_channel", "#qwen-serving", "runbook_url", "https://wiki/runbook"))
        .match(Map.of("job", "vllm", "model_name", "unsloth/Qwen3.8-27B-NVFP4"))
        .positionAcceptance(List.of(0.62, 0.38, 0.23))
        .build();
  }

  private void enqueue(Transition t) throws IOException {
    Intent.Kind kind =
        t.kind() == Transition.Kind.FIRING ? Intent.Kind.FIRING : Intent.Kind.RESOLVED;
    outbox.add(List.of(Intent.of("slack", kind, t, clock.instant())));
  }

  @Test
  void aCeilingsHeadlineSaysAboveItsCeiling() {
    Transition t =
        Transition.builder(
                AlertKey.parse("deepseek/acceptance_rate_above"), Transition.Kind.FIRING, T0)
            .reason("acceptance_rate_above 0.990 above 0.970")
            .value(0.99)
            .threshold(0.97)
            .severity(dev.specwatch.model.Severity.WARNING)
            .build();
    assertThat(SlackMessages.headline(t))
        .isEqualTo("deepseek: acceptance rate too high 0.990, 2 % above its 0.970 ceiling");
  }

  @Test
  void firingPostsOneBlockKitMessageAndResolveUpdatesItAndRepliesInThread() throws Exception {
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    assertThat(worker.runOnce()).isEqualTo(1);
    List<FakeSlackApi.Call> calls = slack.calls();
    assertThat(calls).hasSize(1);
    FakeSlackApi.Call post = calls.get(0);
    assertThat(post.method()).isEqualTo("chat.postMessage");
    assertThat(post.authorization()).isEqualTo("Bearer " + TOKEN);
    assertThat(post.params()).containsEntry("channel", "#qwen-serving");
    assertThat(post.params().get("text"))
        .isEqualTo("[WARNING] qwen: acceptance rate 0.410, 9 % below its 0.450 threshold");
    JsonNode blocks = JSON.readTree(post.params().get("blocks"));
    assertThat(blocks.get(0).path("type").asText()).isEqualTo("header");
    assertThat(blocks.get(0).path("text").path("text").asText())
        .isEqualTo(":red_circle: qwen: acceptance rate 0.410, 9 % below its 0.450 threshold");
    assertThat(SlackMessages.escape("a <b> & c")).isEqualTo("a &lt;b&gt; &amp; c");
    assertThat(blocks.get(1).path("fields").toString())
        .contains("*Acceptance by position*\\n0.620 · 0.380 · 0.230")
        .doesNotContain("acceptance_rate 0.410 below");
    assertThat(blocks.get(3).toString()).contains("warning").contains("rule `acceptance_rate`");
    JsonNode buttons = blocks.get(2).path("elements");
    assertThat(buttons.get(0).path("url").asText())
        .isEqualTo(
            "http://grafana:3000/d/"
                + "vllm-spec-decode/vllm-speculative-decoding?orgId=1&var-model_name=unsloth%2F"
                + "Qwen3.8-27B-NVFP4&from="
                + T0.minusSeconds(300 + 1800).toEpochMilli()
                + "&to=now");
    assertThat(buttons.get(1).path("url").asText()).isEqualTo("http://specwatch:9464/recipes/qwen");
    assertThat(buttons.get(2).path("url").asText())
        .isEqualTo("http://specwatch:9464/silences?recipe=qwen&rule=acceptance_rate&duration=2h");
    assertThat(buttons.get(3).path("url").asText()).isEqualTo("https://wiki/runbook");
    String ts = threads.get("qwen/acceptance_rate").orElseThrow().ts();

    clock.advance(Duration.ofMinutes(20));
    enqueue(transition(2, Transition.Kind.RESOLVED, clock.instant()));
    assertThat(worker.runOnce()).as("the edit landed, the reply waits for the pace").isZero();
    assertThat(outbox.pending())
        .singleElement()
        .extracting(Intent::progress)
        .isEqualTo(SlackNotifier.EDITED);
    clock.advance(Duration.ofSeconds(1));
    // A new worker (a restart, or another replica taking the intent over) sends the reply without
    // editing again: the edit is recorded with the intent in the outbox.
    worker = newWorker();
    assertThat(worker.runOnce()).isEqualTo(1);
    calls = slack.calls();
    assertThat(calls).hasSize(3);
    assertThat(calls.get(1).method()).isEqualTo("chat.update");
    assertThat(calls.get(1).params())
        .containsEntry("channel", "#qwen-serving")
        .containsEntry("ts", ts);
    assertThat(
            JSON.readTree(calls.get(1).params().get("blocks"))
                .get(0)
                .path("text")
                .path("text")
                .asText())
        .isEqualTo(":large_green_circle: qwen: acceptance rate recovered after 20m");
    assertThat(calls.get(2).method()).isEqualTo("chat.postMessage");
    assertThat(calls.get(2).params()).containsEntry("thread_ts", ts);
    assertThat(calls.get(2).params().get("text"))
        .startsWith(":white_check_mark: Recovered after 20m");
    assertThat(outbox.pending()).isEmpty();
    assertThat(threads.get("qwen/acceptance_rate")).isEmpty();
  }

  @Test
  void honoursRetryAfterOn429() throws Exception {
    slack.enqueue(429, "{\"ok\":false,\"error\":\"ratelimited\"}", "7");
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    assertThat(worker.runOnce()).isZero();
    Intent waiting = outbox.pending().get(0);
    assertThat(waiting.nextAttemptAt()).isEqualTo(T0.plusSeconds(7));
    assertThat(waiting.lastError()).contains("HTTP 429").contains("Retry-After 7s");
    clock.advance(Duration.ofSeconds(6));
    assertThat(worker.runOnce()).as("not before Retry-After").isZero();
    assertThat(slack.calls()).hasSize(1);
    clock.advance(Duration.ofSeconds(1));
    assertThat(worker.runOnce()).isEqualTo(1);
    assertThat(slack.calls()).hasSize(2);
  }

  @Test
  void retries503AndKeepsTheResolveBehindItsFiring() throws Exception {
    slack.enqueue(503, "upstream unavailable", null);
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    enqueue(transition(2, Transition.Kind.RESOLVED, T0));
    assertThat(worker.runOnce()).isZero();
    assertThat(slack.calls()).hasSize(1).allMatch(c -> c.method().equals("chat.postMessage"));
    Instant next = outbox.pending().get(0).nextAttemptAt();
    assertThat(next).isAfter(T0).isBeforeOrEqualTo(T0.plus(DeliveryWorker.BASE_DELAY));
    clock.advance(Duration.ofSeconds(2));
    // A new worker, as after a restart, finds both intents in the outbox and keeps their order.
    worker = newWorker();
    assertThat(worker.runOnce()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(1)); // one message per second per channel
    assertThat(worker.runOnce()).as("the edit").isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(worker.runOnce()).as("the thread reply").isEqualTo(1);
    // The restarted worker cannot know whether the first post reached Slack before the restart,
    // so it looks for it first (the stand-in's channel has no message, so it posts).
    assertThat(slack.calls())
        .extracting(FakeSlackApi.Call::method)
        .containsExactly(
            "chat.postMessage",
            "conversations.list",
            "chat.postMessage",
            "chat.update",
            "chat.postMessage");
  }

  @Test
  void aPostThatReachedSlackBeforeACrashIsAdoptedNotPostedTwice() throws Exception {
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    // The crash window: Slack accepted the post, the process died before recording it. Here the
    // post goes out through a notifier whose records are thrown away with its state directory.
    Path lost = Files.createTempDirectory(state, "lost");
    SlackNotifier dying = notifier(new SlackThreadStore(lost));
    assertThat(dying.send(outbox.pending().get(0))).isInstanceOf(DeliveryResult.Delivered.class);
    String channel = slack.calls().get(0).params().get("channel");
    assertThat(slack.calls().get(0).params().get("metadata"))
        .as("the post carries its intent's id")
        .contains("\"event_type\":\"specwatch_alert\"")
        .contains(outbox.pending().get(0).id());
    clock.advance(Duration.ofSeconds(30));
    worker = newWorker(); // the restarted process: the intent is still pending
    assertThat(worker.runOnce()).isEqualTo(1);
    assertThat(slack.calls())
        .extracting(FakeSlackApi.Call::method)
        .containsExactly("chat.postMessage", "conversations.list", "conversations.history");
    assertThat(slack.calls().get(2).params())
        .containsEntry("channel", channel)
        .containsEntry("include_all_metadata", "1");
    // Adopted: the message's ts is recorded, so the resolve edits that message.
    assertThat(threads.get("qwen/acceptance_rate")).isPresent();
    enqueue(transition(2, Transition.Kind.RESOLVED, clock.instant()));
    clock.advance(Duration.ofSeconds(2));
    assertThat(worker.runOnce()).as("the edit").isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(worker.runOnce()).as("the thread reply").isEqualTo(1);
    assertThat(slack.calls())
        .filteredOn(
            c -> c.method().equals("chat.postMessage") && !c.params().containsKey("thread_ts"))
        .as("one top-level message for the alert")
        .hasSize(1);
    assertThat(slack.calls()).anyMatch(c -> c.method().equals("chat.update"));
  }

  @Test
  void anUncertainAttemptThatIsPacedStaysUncertainAndStillAdopts() throws Exception {
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    Path lost = Files.createTempDirectory(state, "lost");
    assertThat(notifier(new SlackThreadStore(lost)).send(outbox.pending().get(0)))
        .isInstanceOf(DeliveryResult.Delivered.class);
    clock.advance(Duration.ofSeconds(30));
    // The restarted process finds the channel held by another writer (a replica paused mid-call,
    // its lease not run out): its first attempt is paced before it can look for the message.
    ChannelPace pace = ChannelPace.local();
    assertThat(pace.take("#qwen-serving", clock.instant(), Duration.ofSeconds(30))).isEmpty();
    SlackNotifier restarted =
        new SlackNotifier(
            notifier(threads).config(),
            SlackMessages.Urls.none(),
            threads,
            dev.specwatch.store.KeyedStore.memory(),
            pace,
            clock);
    worker =
        new DeliveryWorker(
            outbox, Map.of("slack", restarted), clock, new Random(1), DeliveryListener.NONE);
    assertThat(worker.runOnce()).isZero();
    assertThat(slack.calls()).hasSize(1);
    pace.release("#qwen-serving", clock.instant());
    clock.advance(Duration.ofSeconds(1));
    assertThat(worker.runOnce()).isEqualTo(1);
    assertThat(slack.calls())
        .extracting(FakeSlackApi.Call::method)
        .as("adopted, not posted again")
        .containsExactly("chat.postMessage", "conversations.list", "conversations.history");
  }

  @Test
  void withoutTheHistoryScopeThePostGoesOutAndTheScopeIsNamedOnce() throws Exception {
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    clock.advance(Duration.ofSeconds(30));
    worker = newWorker();
    slack.enqueue(
        200, "{\"ok\":false,\"error\":\"missing_scope\",\"needed\":\"channels:read\"}", null);
    assertThat(worker.runOnce()).isEqualTo(1);
    assertThat(slack.calls())
        .extracting(FakeSlackApi.Call::method)
        .containsExactly("conversations.list", "chat.postMessage");
    assertThat(logs.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(m -> m.startsWith("cannot look in Slack for a message posted before a crash"))
        .singleElement()
        .satisfies(m -> assertThat(m).contains("missing_scope, needs channels:read"));
  }

  @Test
  void slackErrorsLikeChannelNotFoundArePermanentAndLoggedOnce() throws Exception {
    slack.enqueue(200, "{\"ok\":false,\"error\":\"channel_not_found\"}", null);
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    worker.runOnce();
    clock.advance(Duration.ofMinutes(10));
    worker.runOnce();
    assertThat(slack.calls()).hasSize(1);
    assertThat(outbox.pending()).isEmpty();
    try (var failed = Files.list(outbox.dir().resolve("failed"))) {
      assertThat(failed.count()).isEqualTo(1);
    }
    assertThat(logs.list)
        .filteredOn(e -> e.getFormattedMessage().contains("channel_not_found"))
        .hasSize(1)
        .allSatisfy(e -> assertThat(e.getFormattedMessage()).contains("invite the bot"));
  }

  @Test
  void pacesOneMessagePerSecondPerChannel() throws Exception {
    Transition a = transition(1, Transition.Kind.FIRING, T0);
    Transition b =
        Transition.builder(AlertKey.parse("other/acceptance_rate"), Transition.Kind.FIRING, T0)
            .sequence(2)
            .reason("x")
            .value(0.3)
            .threshold(0.45)
            .window(Duration.ofMinutes(5))
            .since(T0)
            .severity(dev.specwatch.model.Severity.WARNING)
            .labels(Map.of("slack_channel", "#qwen-serving"))
            .build();
    enqueue(a);
    enqueue(b);
    assertThat(worker.runOnce()).isEqualTo(1);
    // The pace is kept in memory (it is this process's): the intent is not rewritten.
    assertThat(outbox.pending().get(0).nextAttemptAt()).isEqualTo(T0);
    // Waiting for the pace is not a failed attempt: no backoff grows, nothing is counted.
    assertThat(outbox.pending().get(0).attempts()).isZero();
    assertThat(failures).as("pacing counts no failure").isEmpty();
    clock.advance(Duration.ofMillis(500));
    assertThat(worker.runOnce()).as("still within the second").isZero();
    assertThat(slack.calls()).hasSize(1);
    clock.advance(Duration.ofMillis(500));
    assertThat(worker.runOnce()).isEqualTo(1);
    assertThat(slack.calls()).hasSize(2);
  }

  @Test
  void repeatsWhileFiringAreThreadReplies() throws Exception {
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    worker.runOnce();
    String ts = threads.get("qwen/acceptance_rate").orElseThrow().ts();
    clock.advance(Duration.ofHours(4));
    outbox.add(
        List.of(
            Intent.of(
                "slack",
                Intent.Kind.REPEAT,
                transition(1, Transition.Kind.FIRING, T0),
                clock.instant())));
    worker.runOnce();
    FakeSlackApi.Call repeat = slack.calls().get(1);
    assertThat(repeat.params()).containsEntry("thread_ts", ts);
    assertThat(repeat.params().get("text")).startsWith(":hourglass: Still firing after 4h");
  }

  @Test
  void notifiersMadeOnEveryReloadLeakNoThread() {
    // Before, each notifier made its own SDK config, whose metrics datastores start threads that
    // nothing stops: 9 -> 209 "slack-api-metrics" threads after 200 reloads.
    for (int i = 0; i < 3; i++) {
      notifier(threads);
    }
    long before = slackThreads();
    for (int i = 0; i < 200; i++) {
      notifier(threads);
    }
    // Not "equal": the SDK's own threads (its executors, idle HTTP connections) may end or start
    // between the two counts (25 against 26 once); the leak this guards against is one per
    // notifier.
    assertThat(slackThreads())
        .as("threads named slack after 200 more notifiers")
        .isLessThanOrEqualTo(before + 10);
  }

  private static long slackThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(
            t -> t.isAlive() && t.getName().toLowerCase(java.util.Locale.ROOT).contains("slack"))
        .count();
  }

  @Test
  void theFallbackTextIsEscapedAsTheBlocksAre() throws Exception {
    // Slack reads text as mrkdwn: before, a detail holding <!channel> pinged the channel from
    // the post's, the update's and the group message's fallback text.
    enqueue(transition(1, Transition.Kind.FIRING, T0));
    worker.runOnce();
    clock.advance(Duration.ofMinutes(20));
    Transition resolved =
        Transition.builder(
                AlertKey.parse("qwen/acceptance_rate"), Transition.Kind.RESOLVED, clock.instant())
            .sequence(2)
            .reason("<!channel> recovered: acceptance_rate 0.840 above 0.500 & <@U123>")
            .value(0.84)
            .threshold(0.45)
            .window(Duration.ofMinutes(5))
            .since(T0)
            .severity(dev.specwatch.model.Severity.WARNING)
            .labels(Map.of("slack_channel", "#qwen-serving"))
            .match(Map.of("job", "vllm", "model_name", "unsloth/Qwen3.8-27B-NVFP4"))
            .build();
    enqueue(resolved);
    worker.runOnce();
    clock.advance(Duration.ofSeconds(1));
    worker.runOnce();
    List<String> texts =
        slack.calls().stream()
            .map(c -> c.params().get("text"))
            .filter(java.util.Objects::nonNull)
            .toList();
    assertThat(texts).anyMatch(t -> t.contains("&lt;!channel&gt;"));
    assertThat(texts).noneMatch(t -> t.contains("<!channel>") || t.contains("<@U123>"));
    assertThat(SlackMessages.slackText(resolved, T0)).contains("&amp; &lt;@U123&gt;");
  }
}
