package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.testing.AlertmanagerServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Pushes to a real Alertmanager (Debian prometheus-alertmanager) and reads /api/v2/alerts. */
class AlertmanagerNotifierIT {
  static final ObjectMapper JSON = new ObjectMapper();

  static JsonNode alerts(AlertmanagerServer am) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        am.uri(
                            "/api/v2/alerts?active=true&silenced=true&inhibited=true"
                                + "&unprocessed=true"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body());
  }

  @Test
  void firingIsActiveWithLabelsAndResolvedEndsIt() throws Exception {
    try (AlertmanagerServer am = AlertmanagerServer.start()) {
      AlertmanagerNotifier notifier =
          new AlertmanagerNotifier(
              new NotifierConfig.Alertmanager("am", am.baseUri()),
              Optional.of(URI.create("http://grafana:3000")),
              Duration.ofMinutes(2));
      Instant now = Instant.now();
      Transition firing =
          Transition.builder(AlertKey.parse("qwen/acceptance_rate"), Transition.Kind.FIRING, now)
              .sequence(7)
              .reason("acceptance_rate 0.410 below 0.450")
              .value(0.41)
              .threshold(0.45)
              .window(Duration.ofMinutes(5))
              .since(now.minusSeconds(300))
              .severity(dev.specwatch.model.Severity.WARNING)
              .labels(Map.of("team", "serving", "runbook_url", "https://wiki/rb"))
              .match(Map.of("job", "vllm", "model_name", "unsloth/Qwen3.8-27B-NVFP4"))
              .positionAcceptance(List.of(0.6))
              .build();
      assertThat(notifier.send(Intent.of("am", Intent.Kind.FIRING, firing, now)))
          .isInstanceOf(DeliveryResult.Delivered.class);

      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                JsonNode list = alerts(am);
                assertThat(list).hasSize(1);
                JsonNode alert = list.get(0);
                assertThat(alert.path("status").path("state").asText()).isEqualTo("active");
                JsonNode labels = alert.path("labels");
                assertThat(labels.path("alertname").asText()).isEqualTo("SpecDecodeAcceptanceRate");
                assertThat(labels.path("recipe").asText()).isEqualTo("qwen");
                assertThat(labels.path("model_name").asText())
                    .isEqualTo("unsloth/Qwen3.8-27B-NVFP4");
                assertThat(labels.path("severity").asText()).isEqualTo("warning");
                assertThat(labels.path("rule").asText()).isEqualTo("acceptance_rate");
                assertThat(labels.path("team").asText()).isEqualTo("serving");
                assertThat(labels.has("runbook_url")).as("an annotation, not a label").isFalse();
                assertThat(alert.path("annotations").path("runbook_url").asText())
                    .isEqualTo("https://wiki/rb");
                assertThat(alert.path("generatorURL").asText())
                    .startsWith("http://grafana:3000/d/");
              });

      // Re-sent while firing keeps it active; the resolve ends it.
      assertThat(notifier.resendFiring(List.of(firing), Instant.now()))
          .isInstanceOf(DeliveryResult.Delivered.class);
      Transition resolved =
          Transition.builder(
                  AlertKey.parse("qwen/acceptance_rate"), Transition.Kind.RESOLVED, Instant.now())
              .sequence(8)
              .reason("recovered")
              .value(0.84)
              .threshold(0.45)
              .window(Duration.ofMinutes(5))
              .since(now)
              .severity(dev.specwatch.model.Severity.WARNING)
              .labels(Map.of("team", "serving"))
              .match(Map.of("job", "vllm", "model_name", "unsloth/Qwen3.8-27B-NVFP4"))
              .build();
      assertThat(notifier.send(Intent.of("am", Intent.Kind.RESOLVED, resolved, Instant.now())))
          .isInstanceOf(DeliveryResult.Delivered.class);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(alerts(am)).as("resolved alerts are no longer active").isEmpty());
    }
  }

  @Test
  void unreachableAlertmanagerIsRetried() {
    AlertmanagerNotifier notifier =
        new AlertmanagerNotifier(
            new NotifierConfig.Alertmanager("am", URI.create("http://127.0.0.1:1")),
            Optional.empty(),
            Duration.ofMinutes(2));
    Transition t =
        Transition.builder(AlertKey.parse("a/b"), Transition.Kind.FIRING, Instant.now())
            .sequence(1)
            .reason("r")
            .value(0.1)
            .threshold(0.2)
            .window(Duration.ofMinutes(5))
            .since(Instant.now())
            .severity(dev.specwatch.model.Severity.WARNING)
            .build();
    assertThat(notifier.send(Intent.of("am", Intent.Kind.FIRING, t, Instant.now())))
        .isInstanceOf(DeliveryResult.Retry.class);
  }
}
