package dev.specwatch.notify.slack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertService;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.DeliveryListener;
import dev.specwatch.notify.NotificationService;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Grouping (docs/NOTIFICATIONS.md): a storm of 30 recipes is one Slack message listing them, edited
 * in place as a late member joins and as they recover, each recipe's detail in its thread; two
 * alerts are two messages as without grouping. Engine, outbox and worker are the daemon's; the
 * clock is the test's, so the group_wait and group_interval are exact.
 */
class SlackGroupingTest {
  @TempDir Path dir;

  final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));

  /** Acceptance by recipe; absent: healthy. */
  final Map<String, Double> regressed = new ConcurrentHashMap<>();

  List<String> recipes = new ArrayList<>();

  List<Sample> answer(String promql) {
    List<Sample> out = new ArrayList<>();
    for (String r : recipes) {
      Map<String, String> labels = Map.of("job", "vllm", "model_name", r);
      if (promql.contains("increase(")) {
        out.add(new Sample(labels, clock.instant(), 9000));
      } else if (promql.contains("/")
          && promql.contains("accepted_tokens_total")
          && !promql.startsWith("1 + ")) {
        out.add(new Sample(labels, clock.instant(), regressed.getOrDefault(r, 0.8)));
      }
    }
    return out;
  }

  SpecwatchConfig config(FakeSlackApi slack, int count) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    recipes =
        IntStream.rangeClosed(1, count).mapToObj(i -> String.format("qwen3-%02d", i)).toList();
    for (String r : recipes) {
      Files.writeString(
          dir.resolve("alerts/" + r + ".yaml"),
          "recipe: "
              + r
              + "\nmatch: {job: vllm, model_name: "
              + r
              + "}\nnum_speculative_tokens: 3\nfor: 0s\nkeep_firing_for: 0s\n"
              + "thresholds: {acceptance_rate: {below: 0.45}}\n");
    }
    // The defaults: group_wait 30s, group_interval 1m, threshold 3.
    Files.writeString(
        dir.resolve("specwatch.yaml"),
        "prometheus: {url: http://127.0.0.1:9090}\n"
            + "policies: alerts\nstate: {dir: state}\nnotifiers:\n"
            + "  - {type: slack, token: xoxb-t, channel: \"#mtp\", api_url: \""
            + slack.apiUrl()
            + "\"}\n");
    return new ConfigLoader(k -> null).load(dir.resolve("specwatch.yaml"));
  }

  AlertService service(SpecwatchConfig c, NotificationService n) throws IOException {
    return AlertService.builder(
            new Evaluator(FakePrometheus.of(this::answer), clock),
            new AlertEngine(SpecwatchConfig.Alerting.defaults()),
            clock)
        .files(c.stateDir())
        .sink(n.sink())
        .build();
  }

  /** Delivers for {@code seconds}, a pass a second (Slack's pace is one write a second). */
  static void deliverFor(NotificationService n, MutableClock clock, int seconds)
      throws IOException {
    for (int i = 0; i < seconds; i++) {
      n.deliverOnce();
      clock.advance(Duration.ofSeconds(1));
    }
  }

  static List<FakeSlackApi.Call> topLevel(FakeSlackApi slack) {
    return slack.calls().stream()
        .filter(c -> c.method().equals("chat.postMessage") && !c.params().containsKey("thread_ts"))
        .toList();
  }

  @Test
  void aStormIsOneMessageEditedAsAMemberJoinsAndAsTheyRecover() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SpecwatchConfig c = config(slack, 30);
      NotificationService n = new NotificationService(c, clock, DeliveryListener.NONE);
      AlertService alerts = service(c, n);
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      // One upgrade across the fleet: 29 recipes regress in the same evaluation.
      recipes.subList(0, 29).forEach(r -> regressed.put(r, 0.30));
      clock.advance(Duration.ofSeconds(30));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      deliverFor(n, clock, 29);
      assertThat(slack.calls()).as("the group waits group_wait (30s) for more").isEmpty();

      deliverFor(n, clock, 31); // the group message, then one detail reply a second
      List<FakeSlackApi.Call> top = topLevel(slack);
      assertThat(top).hasSize(1);
      String group = top.get(0).params().get("blocks");
      assertThat(top.get(0).params().get("text"))
          .startsWith("[WARNING] 29 recipes breach their thresholds: qwen3-01, qwen3-02");
      assertThat(group).contains("One cause likely").contains("acceptance rate");
      recipes.subList(0, 29).forEach(r -> assertThat(group).contains(r));
      List<FakeSlackApi.Call> details =
          slack.calls().stream().filter(call -> call.params().containsKey("thread_ts")).toList();
      assertThat(details).hasSize(29);
      Set<String> parents = new java.util.HashSet<>();
      details.forEach(d -> parents.add(d.params().get("thread_ts")));
      assertThat(parents).as("every detail is in the group's thread").hasSize(1);
      assertThat(details.get(0).params().get("text"))
          .isEqualTo("[WARNING] qwen3-01: acceptance rate 0.300, 33 % below its 0.450 threshold");

      // A late member: joins the posted group at its next edit (group_interval after the post).
      regressed.put("qwen3-30", 0.30);
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      deliverFor(n, clock, 40);
      assertThat(topLevel(slack)).as("a late member joins, no new message").hasSize(1);
      List<FakeSlackApi.Call> edits =
          slack.calls().stream().filter(call -> call.method().equals("chat.update")).toList();
      assertThat(edits).hasSize(1);
      assertThat(edits.get(0).params().get("blocks")).contains("qwen3-30");
      assertThat(edits.get(0).params().get("text")).startsWith("[WARNING] 30 recipes breach");
      assertThat(slack.calls().get(slack.calls().size() - 1).params().get("text"))
          .contains("qwen3-30");

      // Recovery of all: one edit (the last recovery is shown at once), one reply naming them.
      regressed.clear();
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      deliverFor(n, clock, 5);
      List<FakeSlackApi.Call> all = slack.calls();
      FakeSlackApi.Call resolveEdit = all.get(all.size() - 2);
      assertThat(resolveEdit.method()).isEqualTo("chat.update");
      assertThat(resolveEdit.params().get("text"))
          .startsWith("[RESOLVED] All 30 recipes recovered");
      assertThat(resolveEdit.params().get("blocks")).contains("~");
      FakeSlackApi.Call reply = all.get(all.size() - 1);
      assertThat(reply.params()).containsKey("thread_ts");
      assertThat(reply.params().get("text"))
          .startsWith(":white_check_mark: Recovered: qwen3-01 after ")
          .contains("qwen3-30 after ")
          .endsWith("All recovered.");
      assertThat(all).as("1 post, 30 details, 2 edits, 1 reply").hasSize(34);
      // The members that recovered before the last wait for the edit they were due at (at most
      // group_interval), then have nothing left to send.
      deliverFor(n, clock, 60);
      assertThat(slack.calls()).hasSize(34);
      assertThat(n.outbox().pending()).isEmpty();
      assertThat(Files.readString(c.stateDir().resolve("slack-groups.json")).strip())
          .isEqualTo("{ }");
    }
  }

  @Test
  void fewerThanTheThresholdAreAMessageEachAsWithoutGrouping() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SpecwatchConfig c = config(slack, 2);
      NotificationService n = new NotificationService(c, clock, DeliveryListener.NONE);
      AlertService alerts = service(c, n);
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      recipes.forEach(r -> regressed.put(r, 0.30));
      clock.advance(Duration.ofSeconds(30));
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      deliverFor(n, clock, 35);
      assertThat(topLevel(slack))
          .extracting(call -> call.params().get("text"))
          .containsExactly(
              "[WARNING] qwen3-01: acceptance rate 0.300, 33 % below its 0.450 threshold",
              "[WARNING] qwen3-02: acceptance rate 0.300, 33 % below its 0.450 threshold");
      assertThat(slack.calls()).hasSize(2);
      regressed.clear();
      alerts.runOnce(c.policies(), Duration.ofMinutes(5));
      deliverFor(n, clock, 5);
      assertThat(slack.calls())
          .extracting(FakeSlackApi.Call::method)
          .containsExactly(
              "chat.postMessage",
              "chat.postMessage",
              "chat.update",
              "chat.postMessage",
              "chat.update",
              "chat.postMessage");
    }
  }
}
