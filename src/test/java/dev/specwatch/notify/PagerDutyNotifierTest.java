package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Secret;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.Test;

/** The Events API v2 documents and how each answer is taken, against a local stand-in. */
class PagerDutyNotifierTest {
  static final String KEY = "R0pagerduty0planted0routing0key0";
  final ObjectMapper json = new ObjectMapper();

  private PagerDutyNotifier notifier(MockWebServer server) {
    return new PagerDutyNotifier(
        new NotifierConfig.PagerDuty(
            "pagerduty", Secret.of(KEY), server.url("/v2/enqueue").uri(), Optional.empty()),
        Optional.of(URI.create("https://specwatch.example.com/")),
        Clock.systemUTC());
  }

  private static Intent intent(Intent.Kind kind) {
    Transition t = NotifiersTest.transition();
    if (kind == Intent.Kind.RESOLVED) {
      t =
          Transition.builder(t.key(), Transition.Kind.RESOLVED, t.at().plusSeconds(600))
              .sequence(4)
              .since(t.since())
              .severity(t.severity())
              .match(t.match())
              .build();
    }
    return Intent.of("pagerduty", kind, t, Instant.parse("2026-11-30T12:00:00Z"));
  }

  @Test
  void triggerAndResolveShareOneDedupKey() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse().setResponseCode(202).setBody("{\"status\":\"success\"}"));
      server.enqueue(new MockResponse().setResponseCode(202).setBody("{\"status\":\"success\"}"));
      PagerDutyNotifier notifier = notifier(server);
      assertThat(notifier.send(intent(Intent.Kind.FIRING))).isEqualTo(DeliveryResult.delivered());
      assertThat(notifier.send(intent(Intent.Kind.RESOLVED))).isEqualTo(DeliveryResult.delivered());

      RecordedRequest first = server.takeRequest();
      assertThat(first.getPath()).isEqualTo("/v2/enqueue");
      JsonNode trigger = json.readTree(first.getBody().readUtf8());
      assertThat(trigger.path("routing_key").asText()).isEqualTo(KEY);
      assertThat(trigger.path("event_action").asText()).isEqualTo("trigger");
      assertThat(trigger.path("dedup_key").asText()).isEqualTo("specwatch/qwen/acceptance_rate");
      JsonNode payload = trigger.path("payload");
      assertThat(payload.path("summary").asText()).startsWith("[WARNING] qwen: ");
      assertThat(payload.path("severity").asText()).isEqualTo("warning");
      assertThat(payload.path("source").asText()).isEqualTo("qwen");
      assertThat(payload.path("component").asText()).isEqualTo("m");
      assertThat(payload.path("timestamp").asText()).isEqualTo("2026-11-30T12:00:00Z");
      assertThat(payload.path("custom_details").path("value").asDouble()).isEqualTo(0.41);
      assertThat(trigger.path("client_url").asText())
          .isEqualTo("https://specwatch.example.com/recipes/qwen");

      JsonNode resolve = json.readTree(server.takeRequest().getBody().readUtf8());
      assertThat(resolve.path("event_action").asText()).isEqualTo("resolve");
      assertThat(resolve.path("dedup_key").asText()).isEqualTo("specwatch/qwen/acceptance_rate");
      assertThat(resolve.has("payload")).as("a resolve carries the key alone").isFalse();
    }
  }

  @Test
  void rateLimitsAndOutagesAreRetriedAnInvalidEventIsNotAndTheKeyIsNeverQuoted() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse().setResponseCode(429).setHeader("Retry-After", "3"));
      server.enqueue(new MockResponse().setResponseCode(503));
      server.enqueue(
          new MockResponse()
              .setResponseCode(400)
              .setBody(
                  "{\"status\":\"invalid event\",\"message\":\"Event object is invalid\","
                      + "\"errors\":[\"routing_key "
                      + KEY
                      + " is unknown\"]}"));
      PagerDutyNotifier notifier = notifier(server);
      DeliveryResult limited = notifier.send(intent(Intent.Kind.FIRING));
      assertThat(limited).isInstanceOf(DeliveryResult.Retry.class);
      assertThat(((DeliveryResult.Retry) limited).after()).hasSeconds(3);
      assertThat(notifier.send(intent(Intent.Kind.FIRING)))
          .isInstanceOf(DeliveryResult.Retry.class);
      DeliveryResult invalid = notifier.send(intent(Intent.Kind.FIRING));
      assertThat(invalid).isInstanceOf(DeliveryResult.Permanent.class);
      assertThat(invalid.toString())
          .contains("pagerduty http://")
          .contains("HTTP 400")
          .doesNotContain(KEY);
    }
  }
}
