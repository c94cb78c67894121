package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Secret;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.slack.SlackThreadStore;
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

public class NotifiersTest {
  @TempDir Path dir;

  public static Transition transition() {
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
          - {type: pagerduty, routing_key: R0123456789abcdef0123456789abcdef}
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
        .containsOnlyKeys(
            "slack", "hook", "log", "webhook", "alertmanager", "grafana", "pagerduty");
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

  /**
   * The verification recipe of docs/NOTIFICATIONS.md, written from the docs (its own HMAC): the V2
   * signature over timestamp, delivery and body, at most 5 minutes old, each delivery once.
   */
  static final class Receiver {
    final java.util.Set<String> seen = new java.util.HashSet<>();

    boolean accepts(RecordedRequest r, byte[] body, Instant now) throws Exception {
      String ts = r.getHeader("X-Specwatch-Timestamp");
      String delivery = r.getHeader("X-Specwatch-Delivery");
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(
          new javax.crypto.spec.SecretKeySpec(
              "hmac-secret".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((ts + "." + delivery + ".").getBytes(StandardCharsets.UTF_8));
      String expected = "sha256=" + java.util.HexFormat.of().formatHex(mac.doFinal(body));
      boolean signed =
          java.security.MessageDigest.isEqual(
              expected.getBytes(StandardCharsets.UTF_8),
              String.valueOf(r.getHeader("X-Specwatch-Signature-V2"))
                  .getBytes(StandardCharsets.UTF_8));
      boolean fresh = Math.abs(now.getEpochSecond() - Long.parseLong(ts)) <= 300;
      return signed && fresh && seen.add(delivery);
    }
  }

  @Test
  void webhookSignaturesCoverTheTimeAndTheDeliverySoAReplayIsRefused() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse().setResponseCode(503));
      server.enqueue(new MockResponse().setResponseCode(200));
      dev.specwatch.testing.MutableClock clock =
          new dev.specwatch.testing.MutableClock(Instant.parse("2026-12-03T10:00:00Z"));
      WebhookNotifier notifier =
          new WebhookNotifier(
              new NotifierConfig.Webhook(
                  "webhook",
                  server.url("/hook").uri(),
                  Optional.of(Secret.of("hmac-secret")),
                  Map.of()),
              Optional.empty(),
              clock);
      Intent intent = Intent.of("webhook", Intent.Kind.FIRING, transition(), clock.instant());
      assertThat(notifier.send(intent)).isInstanceOf(DeliveryResult.Retry.class);
      clock.advance(Duration.ofSeconds(40));
      assertThat(notifier.send(intent)).isInstanceOf(DeliveryResult.Delivered.class);
      RecordedRequest first = server.takeRequest();
      RecordedRequest retry = server.takeRequest();
      byte[] body = retry.getBody().readByteArray();
      assertThat(retry.getHeader("X-Specwatch-Delivery"))
          .as("one delivery id for every attempt of one notification")
          .isEqualTo(first.getHeader("X-Specwatch-Delivery"))
          .isEqualTo(intent.id());
      assertThat(retry.getHeader("X-Specwatch-Timestamp"))
          .as("the time of this attempt, in Unix seconds")
          .isEqualTo(Long.toString(Instant.parse("2026-12-03T10:00:40Z").getEpochSecond()));

      Receiver receiver = new Receiver();
      assertThat(receiver.accepts(retry, body, clock.instant())).as("genuine").isTrue();
      assertThat(receiver.accepts(retry, body, clock.instant()))
          .as("the same delivery again")
          .isFalse();
      assertThat(new Receiver().accepts(retry, body, clock.instant().plusSeconds(360)))
          .as("captured and replayed 6 minutes later")
          .isFalse();
      byte[] tampered =
          new String(body, StandardCharsets.UTF_8)
              .replace("0.41", "0.91")
              .getBytes(StandardCharsets.UTF_8);
      assertThat(new Receiver().accepts(retry, tampered, clock.instant()))
          .as("a changed body")
          .isFalse();
      assertThat(retry.getHeader(WebhookNotifier.SIGNATURE_HEADER))
          .as("the body-only signature, kept for receivers written before")
          .isEqualTo("sha256=" + WebhookNotifier.hmacSha256("hmac-secret", body));
    }
  }
}
