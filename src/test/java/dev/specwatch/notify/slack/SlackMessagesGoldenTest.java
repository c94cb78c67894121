package dev.specwatch.notify.slack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.slack.api.util.json.GsonFactory;
import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Severity;
import dev.specwatch.notify.Intent;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Golden files of the Slack messages as sent ({@code chat.postMessage} arguments), one per kind of
 * message, and the promise that docs/NOTIFICATIONS.md shows exactly these. After a deliberate
 * change: {@code mvn test -Dtest=SlackMessagesGoldenTest -Dgolden.update=true}, then paste the
 * files into the docs.
 */
class SlackMessagesGoldenTest {
  static final Path GOLDEN = Path.of("src/test/resources/dev/specwatch/notify/golden");
  static final Instant T0 = Instant.parse("2026-11-30T10:07:00Z");
  static final SlackMessages.Urls URLS =
      new SlackMessages.Urls(
          Optional.of(URI.create("http://grafana.example:3000")),
          Optional.of(URI.create("http://specwatch.example:9464")));
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  static Transition transition(
      long seq,
      String alertId,
      String rule,
      Transition.Kind kind,
      String reason,
      Double value,
      double threshold,
      Instant since,
      Instant at,
      Severity severity) {
    return Transition.builder(AlertKey.parse(alertId), kind, at)
        .sequence(seq)
        .reason(reason)
        .value(value)
        .threshold(threshold)
        .window(Duration.ofMinutes(5))
        .since(since)
        .severity(severity)
        .labels(Map.of("runbook_url", "https://wiki.example.com/runbooks/mtp-acceptance"))
        .match(Map.of("job", "vllm", "model_name", "unsloth/Qwen3.8-27B-NVFP4"))
        .positionAcceptance(List.of(0.62, 0.38, 0.23))
        .signals(
            Map.of(
                "acceptance_rate", value == null ? 0.41 : value,
                "mean_accepted_length", 2.23,
                "draft_tokens_per_second", 1533.4))
        .build();
  }

  /** Five recipes of one fleet breach after one upgrade, within 14 s of each other. */
  static SlackGroup storm(boolean recovered) {
    String[] recipes = {
      "qwen3.8-27b-nvfp4",
      "glm-4.6-air-fp8",
      "deepseek-v3.2-mtp",
      "qwen3-coder-30b-a3b",
      "llama-3.3-70b-eagle3"
    };
    double[] values = {0.41, 0.38, 0.44, 0.36, 0.29};
    SlackGroup g =
        SlackGroup.waiting(
            "slack|#qwen-serving|1", "#qwen-serving", T0, T0.plus(Duration.ofSeconds(30)));
    for (int i = 0; i < recipes.length; i++) {
      Transition t =
          transition(
              60 + i,
              recipes[i] + "/acceptance_rate",
              "acceptance_rate",
              Transition.Kind.FIRING,
              String.format(java.util.Locale.ROOT, "acceptance_rate %.3f below 0.450", values[i]),
              values[i],
              0.45,
              T0.minusSeconds(300),
              T0.plusSeconds(i * 3L + (i == 4 ? 2 : 0)),
              i == 4 ? Severity.CRITICAL : Severity.WARNING);
      SlackGroup.Member m = SlackGroup.Member.of(t);
      if (recovered) {
        Transition r =
            transition(
                70 + i,
                recipes[i] + "/acceptance_rate",
                "acceptance_rate",
                Transition.Kind.RESOLVED,
                "recovered: acceptance_rate 0.810 above 0.500",
                0.81,
                0.45,
                t.at(),
                T0.plusSeconds(1260 + i * 4L),
                t.severity());
        m = m.asResolved(r);
      }
      g = g.with(t.alertId(), m);
    }
    return recovered ? g.shown("1764497220.000100", T0.plusSeconds(1300)) : g;
  }

  static Map<String, Object> group(boolean recovered) {
    SlackGroup g = storm(recovered);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("channel", "#qwen-serving");
    if (recovered) {
      m.put("ts", "1764497220.000100");
    }
    m.put("text", SlackGroupMessages.text(g));
    m.put("blocks", SlackGroupMessages.blocks(g, GROUPING, URLS));
    if (recovered) {
      m.put("thread_reply", SlackGroupMessages.recovered(g));
    }
    return m;
  }

  static final dev.specwatch.model.NotifierConfig.Slack.Grouping GROUPING =
      dev.specwatch.model.NotifierConfig.Slack.Grouping.DEFAULT;

  static Map<String, Object> message(String name) {
    if (name.equals("group")) {
      return group(false);
    }
    if (name.equals("group-resolved")) {
      return group(true);
    }
    Transition t;
    switch (name) {
      case "firing" ->
          t =
              transition(
                  41,
                  "qwen3.8-27b-nvfp4/acceptance_rate",
                  "acceptance_rate",
                  Transition.Kind.FIRING,
                  "acceptance_rate 0.410 below 0.450",
                  0.41,
                  0.45,
                  T0.minusSeconds(300),
                  T0,
                  Severity.WARNING);
      case "firing-change" ->
          t =
              transition(
                  43,
                  "qwen3.8-27b-nvfp4/change",
                  "change",
                  Transition.Kind.FIRING,
                  "acceptance 0.662 is 14 % below its learned normal 0.770 for this hour"
                      + " (sequential test, false alarms about 1 in 30 days)",
                  0.662,
                  0.77,
                  T0.minusSeconds(240),
                  T0,
                  Severity.WARNING);
      case "resolved" ->
          t =
              transition(
                  42,
                  "qwen3.8-27b-nvfp4/acceptance_rate",
                  "acceptance_rate",
                  Transition.Kind.RESOLVED,
                  "recovered: acceptance_rate 0.840 above 0.500",
                  0.84,
                  0.45,
                  T0,
                  T0.plusSeconds(1260),
                  Severity.WARNING);
      case "datasource" ->
          t =
              Transition.builder(
                      AlertKey.parse(AlertEngine.DATASOURCE_ALERT), Transition.Kind.FIRING, T0)
                  .sequence(44)
                  .reason("http://prometheus:9090/api/v1/query: connection refused")
                  .value(null)
                  .threshold(0)
                  .window(Duration.ofMinutes(5))
                  .since(T0.minusSeconds(180))
                  .severity(dev.specwatch.model.Severity.CRITICAL)
                  .build();
      case "notify-test" ->
          t =
              Transition.builder(
                      AlertKey.parse(AlertKey.specwatch(SlackMessages.TEST_RULE).id()),
                      Transition.Kind.FIRING,
                      T0)
                  .reason("test")
                  .value(null)
                  .threshold(0)
                  .window(Duration.ofMinutes(5))
                  .since(T0)
                  .severity(dev.specwatch.model.Severity.INFO)
                  .build();
      default -> throw new IllegalArgumentException(name);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("channel", "#qwen-serving");
    m.put("text", SlackMessages.text(t, t.at()));
    m.put(
        "blocks",
        t.kind() == Transition.Kind.FIRING
            ? SlackMessages.firing(t, URLS)
            : SlackMessages.resolved(t, URLS));
    if (name.equals("resolved")) {
      m.put("thread_reply", SlackMessages.reply(t, Intent.Kind.RESOLVED, t.at()));
    }
    return m;
  }

  /** The arguments as the SDK serialises them (Gson, snake_case), indented. */
  static String render(String name) throws Exception {
    String gson = GsonFactory.createSnakeCase().toJson(message(name));
    return JSON.writeValueAsString(JSON.readTree(gson)) + "\n";
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "firing",
        "firing-change",
        "resolved",
        "datasource",
        "notify-test",
        "group",
        "group-resolved"
      })
  void messagesMatchTheirGoldenFilesAndTheDocs(String name) throws Exception {
    Path file = GOLDEN.resolve(name + ".json");
    String rendered = render(name);
    if (Boolean.getBoolean("golden.update")) {
      Files.writeString(file, rendered);
    }
    assertThat(rendered).isEqualTo(Files.readString(file));
    assertThat(Files.readString(Path.of("docs/NOTIFICATIONS.md")))
        .as("docs/NOTIFICATIONS.md shows " + file + " as it is")
        .contains(rendered.strip());
  }

  /** The README's walk through the demo quotes the firing message as the daemon sends it. */
  @org.junit.jupiter.api.Test
  void theReadmeQuotesTheFiringMessageAsSent() throws Exception {
    String text = JSON.readTree(render("firing")).path("text").asText();
    String readme = Files.readString(Path.of("README.md")).replaceAll("\\s+", " ");
    assertThat(readme).contains("[slack] chat.postMessage #qwen-serving: " + text);
    String resolved = JSON.readTree(render("resolved")).path("text").asText();
    // "recovered after 21m (…)" in the golden file; the demo's duration differs, so up to "after".
    assertThat(readme)
        .contains(resolved.substring(0, resolved.indexOf("after") + "after".length()));
  }
}
