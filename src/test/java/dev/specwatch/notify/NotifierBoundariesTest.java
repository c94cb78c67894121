package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Secret;
import dev.specwatch.notify.slack.SlackMessages;
import dev.specwatch.notify.slack.SlackNotifier;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.testing.MutableClock;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What specwatch puts on the wire to Grafana and Slack webhooks, checked by a local server. */
class NotifierBoundariesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  /**
   * The policy's runbook and Slack channel travel with the transition as hints, not as labels a
   * webhook receiver would route or group on: the runbook is its own field, the channel not sent.
   */
  @Test
  void webhookLabelsAreThePolicysWithoutTheNotificationHints() {
    Instant at = Instant.parse("2026-11-30T12:00:00Z");
    Transition t =
        Transition.builder(AlertKey.of("qwen", "acceptance_rate", null), Transition.Kind.FIRING, at)
            .window(Duration.ofMinutes(5))
            .labels(
                Map.of(
                    "team",
                    "serving",
                    Transition.RUNBOOK_URL,
                    "https://wiki.example/spec",
                    Transition.SLACK_CHANNEL,
                    "#qwen-serving"))
            .build();
    Map<String, Object> doc =
        WebhookNotifier.document(Intent.of("hook", Intent.Kind.FIRING, t, at), Optional.empty());
    assertThat(doc.get("labels")).isEqualTo(Map.of("team", "serving"));
    assertThat(doc.get("runbook_url")).isEqualTo("https://wiki.example/spec");
    assertThat(doc.toString()).doesNotContain("#qwen-serving");
  }

  @Test
  void webhookSignatureMatchesIndependentlyComputedHmacs() {
    // RFC 4231, test case 2.
    assertThat(
            WebhookNotifier.hmacSha256(
                "Jefe", "what do ya want for nothing?".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // printf '%s' '{"event":"firing","alert_id":"qwen/acceptance_rate"}'
    //   | openssl dgst -sha256 -hmac 'hmac-secret'
    assertThat(
            WebhookNotifier.hmacSha256(
                "hmac-secret",
                "{\"event\":\"firing\",\"alert_id\":\"qwen/acceptance_rate\"}"
                    .getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("baa8e24608bc34403150e5780e00cec257db3a4076a1a38bd6e1c7e0ebe64ea0");
  }

  @Test
  void grafanaAnnotationIsAnAuthorizedPostOfTheDashboardsAnnotation() throws Exception {
    try (MockWebServer grafana = new MockWebServer()) {
      grafana.enqueue(new MockResponse().setResponseCode(200).setBody("{\"id\":1}"));
      grafana.enqueue(new MockResponse().setResponseCode(403).setBody("{\"message\":\"denied\"}"));
      GrafanaNotifier notifier =
          new GrafanaNotifier(
              new NotifierConfig.Grafana(
                  "grafana",
                  URI.create(grafana.url("/grafana/").toString()),
                  Secret.of("glsa_token"),
                  "vllm-spec-decode"));
      Transition t = NotifiersTest.transition();
      assertThat(notifier.send(Intent.of("grafana", Intent.Kind.FIRING, t, Instant.now())))
          .isInstanceOf(DeliveryResult.Delivered.class);
      RecordedRequest request = grafana.takeRequest();
      assertThat(request.getMethod()).isEqualTo("POST");
      assertThat(request.getPath()).isEqualTo("/grafana/api/annotations");
      assertThat(request.getHeader("Authorization")).isEqualTo("Bearer glsa_token");
      assertThat(request.getHeader("Content-Type")).startsWith("application/json");
      JsonNode body = JSON.readTree(request.getBody().readUtf8());
      assertThat(body.get("dashboardUID").asText()).isEqualTo("vllm-spec-decode");
      assertThat(body.get("time").asLong()).isEqualTo(t.at().toEpochMilli());
      assertThat(body.get("tags"))
          .extracting(JsonNode::asText)
          .containsExactly("specwatch", "qwen", "acceptance_rate", "firing");
      assertThat(body.get("text").asText()).contains("qwen").doesNotContain("glsa_token");
      // A repeat adds no annotation; a refused token is permanent and not quoted back.
      assertThat(notifier.send(Intent.of("grafana", Intent.Kind.REPEAT, t, Instant.now())))
          .isInstanceOf(DeliveryResult.Delivered.class);
      DeliveryResult denied =
          notifier.send(Intent.of("grafana", Intent.Kind.RESOLVED, t, Instant.now()));
      assertThat(denied).isInstanceOf(DeliveryResult.Permanent.class);
      assertThat(denied.toString()).contains("HTTP 403").doesNotContain("glsa_token");
      assertThat(grafana.getRequestCount()).isEqualTo(2);
    }
  }

  @Test
  void slackIncomingWebhookPostsBlockKitAndHonoursRetryAfter() throws Exception {
    try (MockWebServer hook = new MockWebServer()) {
      hook.enqueue(new MockResponse().setResponseCode(200).setBody("ok"));
      hook.enqueue(
          new MockResponse()
              .setResponseCode(429)
              .setHeader("Retry-After", "7")
              .setBody("rate_limited"));
      hook.enqueue(new MockResponse().setResponseCode(200).setBody("ok"));
      String secretPath = "/services/T000/B000/XXXXsecret";
      MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
      SlackNotifier notifier =
          new SlackNotifier(
              new NotifierConfig.Slack(
                  "hook",
                  Optional.empty(),
                  Optional.of(Secret.of(hook.url(secretPath).toString())),
                  Optional.empty(),
                  Optional.empty(),
                  Duration.ofHours(4)),
              SlackMessages.Urls.none(),
              new SlackThreadStore(dir),
              clock);
      assertThat(notifier.repeatInterval()).as("a webhook cannot reply in a thread").isEmpty();
      Transition t = NotifiersTest.transition();
      assertThat(notifier.send(Intent.of("hook", Intent.Kind.FIRING, t, Instant.now())))
          .isInstanceOf(DeliveryResult.Delivered.class);
      RecordedRequest request = hook.takeRequest();
      assertThat(request.getPath()).isEqualTo(secretPath);
      JsonNode body = JSON.readTree(request.getBody().readUtf8());
      assertThat(body.get("text").asText()).contains("qwen");
      assertThat(body.get("blocks").isArray()).isTrue();
      assertThat(body.get("blocks").size()).isGreaterThan(1);

      clock.advance(Duration.ofSeconds(1)); // Slack's pace: one message per second
      DeliveryResult limited =
          notifier.send(Intent.of("hook", Intent.Kind.RESOLVED, t, clock.instant()));
      assertThat(limited).isInstanceOf(DeliveryResult.Retry.class);
      assertThat(((DeliveryResult.Retry) limited).after()).isEqualTo(Duration.ofSeconds(7));
      assertThat(limited.toString()).doesNotContain("XXXXsecret");
    }
  }

  @Test
  void retryAfterReadsSecondsAndHttpDatesAndCapsThem() {
    Instant now = Instant.parse("2026-12-01T10:00:00Z");
    assertThat(RetryAfter.parse("30", now)).contains(Duration.ofSeconds(30));
    assertThat(RetryAfter.parse(" 0 ", now)).contains(Duration.ZERO);
    assertThat(RetryAfter.parse("Tue, 01 Dec 2026 10:01:30 GMT", now))
        .contains(Duration.ofSeconds(90));
    assertThat(RetryAfter.parse("Tue, 01 Dec 2026 09:00:00 GMT", now)).contains(Duration.ZERO);
    assertThat(RetryAfter.parse("86400", now)).contains(RetryAfter.MAX);
    assertThat(RetryAfter.parse("soon", now)).isEmpty();
    assertThat(RetryAfter.parse(null, now)).isEmpty();
  }
}
