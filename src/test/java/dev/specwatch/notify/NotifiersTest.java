package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Secret;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotifiersTest {
  @TempDir Path dir;

  static Transition transition() {
    Instant t = Instant.parse("2026-11-30T12:00:00Z");
    return Transition.builder(AlertKey.parse("qwen/acceptance_rate"), Transition.Kind.FIRING, t)
        .sequence(3)
        .reason("acceptance_rate 0.410 below 0.450")
        .value(0.41)
        .threshold(0.45)
        .window(Duration.ofMinutes(5))
        .since(t.minusSeconds(300))
        .severity(dev.specwatch.model.Severity.WARNING)
        .match(Map.of("model_name", "m"))
        .positionAcceptance(List.of(0.6, 0.4))
        .build();
  }

  @Test
  void everyNotifierTypeInTheConfigIsWired() throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(
        config,
        """
        prometheus: {url: http://127.0.0.1:9090}
        policies: alerts
        state: {dir: state}
        notifiers:
          - {type: slack, token: xoxb-1, channel: "#a"}
          - {type: slack, name: hook, webhook_url: "https://hooks.example.com/x"}
          - {type: log}
          - {type: webhook, url: "http://127.0.0.1:1/hook", secret: s}
          - {type: alertmanager, url: "http://127.0.0.1:9093"}
          - {type: grafana, url: "http://127.0.0.1:3000", token: glsa_x}
        """,
        StandardCharsets.UTF_8);
    SpecwatchConfig c = new ConfigLoader(k -> null).load(config);
    Set<String> types =
        c.notifiers().stream().map(NotifierConfig::type).collect(Collectors.toSet());
    Set<String> declared =
        Arrays.stream(NotifierConfig.class.getPermittedSubclasses())
            .map(Class::getSimpleName)
            .map(s -> s.toLowerCase(java.util.Locale.ROOT))
            .collect(Collectors.toSet());
    assertThat(types).as("the fixture covers every type").isEqualTo(declared);
    Map<String, Notifier> notifiers =
        Notifiers.create(c, new SlackThreadStore(dir), Clock.systemUTC());
    assertThat(notifiers)
        .containsOnlyKeys("slack", "hook", "log", "webhook", "alertmanager", "grafana");
  }

  @Test
  void webhookSignsTheExactBodyAndRetriesOnlyWhatIsSafe() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse().setResponseCode(200));
      server.enqueue(new MockResponse().setResponseCode(502));
      server.enqueue(new MockResponse().setResponseCode(404).setBody("no such hook"));
      WebhookNotifier notifier =
          new WebhookNotifier(
              new NotifierConfig.Webhook(
                  "webhook",
                  server.url("/hook").uri(),
                  Optional.of(Secret.of("hmac-secret")),
                  Map.of("X-Team", "serving")),
              Optional.empty());
      Intent intent = Intent.of("webhook", Intent.Kind.FIRING, transition(), Instant.now());
      assertThat(notifier.send(intent)).isInstanceOf(DeliveryResult.Delivered.class);
      RecordedRequest request = server.takeRequest();
      byte[] body = request.getBody().readByteArray();
      assertThat(request.getHeader(WebhookNotifier.SIGNATURE_HEADER))
          .isEqualTo("sha256=" + WebhookNotifier.hmacSha256("hmac-secret", body));
      assertThat(request.getHeader("X-Team")).isEqualTo("serving");
      String json = new String(body, StandardCharsets.UTF_8);
      assertThat(json)
          .contains("\"event\":\"firing\"")
          .contains("\"alert_id\":\"qwen/acceptance_rate\"")
          .contains("\"position_acceptance\":[0.6,0.4]")
          .doesNotContain("hmac-secret");
      assertThat(notifier.send(intent)).isInstanceOf(DeliveryResult.Retry.class);
      assertThat(notifier.send(intent))
          .isInstanceOf(DeliveryResult.Permanent.class)
          .asString()
          .contains("HTTP 404");
    }
  }
}
