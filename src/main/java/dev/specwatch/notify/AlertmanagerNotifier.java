package dev.specwatch.notify;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.notify.slack.SlackMessages;
import dev.specwatch.signals.AlertingRules;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * Pushes alerts to Alertmanager's v2 API like Prometheus does: labels (alertname, recipe,
 * model_name, rule, severity, the policy's labels), annotations, startsAt, generatorURL; a firing
 * alert carries an endsAt a few evaluations ahead and is re-sent every evaluation while firing
 * ({@link #resendFiring}), a resolved one carries its resolve time as endsAt.
 */
public final class AlertmanagerNotifier implements Notifier {
  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

  private final NotifierConfig.Alertmanager config;
  private final Optional<URI> grafana;
  private final Duration validFor;

  /**
   * @param validFor how long a firing alert stays valid without a re-send (Prometheus uses four
   *     evaluation intervals)
   */
  public AlertmanagerNotifier(
      NotifierConfig.Alertmanager config, Optional<URI> grafana, Duration validFor) {
    this.config = config;
    this.grafana = grafana;
    this.validFor = validFor;
  }

  @Override
  public String name() {
    return config.name();
  }

  @Override
  public DeliveryResult send(Intent intent) {
    if (intent.kind() == Intent.Kind.REPEAT) {
      return DeliveryResult.delivered();
    }
    Transition t = intent.transition();
    Instant endsAt = t.kind() == Transition.Kind.RESOLVED ? t.at() : t.at().plus(validFor);
    return post(List.of(alert(t, endsAt)));
  }

  /** Re-sends currently firing alerts (their last transition) so Alertmanager keeps them. */
  @Override
  public DeliveryResult resendFiring(List<Transition> firing, Instant now) {
    if (firing.isEmpty()) {
      return DeliveryResult.delivered();
    }
    List<Map<String, Object>> alerts = new ArrayList<>();
    for (Transition t : firing) {
      alerts.add(alert(t, now.plus(validFor)));
    }
    return post(alerts);
  }

  private DeliveryResult post(List<Map<String, Object>> alerts) {
    String url = config.url().toString().replaceAll("/+$", "") + "/api/v2/alerts";
    try {
      Request request =
          new Request.Builder()
              .url(url)
              .post(RequestBody.create(HttpDelivery.JSON_BODY.writeValueAsBytes(alerts), JSON))
              .build();
      return HttpDelivery.execute(
          request, "alertmanager " + HttpDelivery.endpoint(URI.create(url)));
    } catch (JsonProcessingException e) {
      return new DeliveryResult.Permanent("cannot encode: " + e.getOriginalMessage());
    }
  }

  Map<String, Object> alert(Transition t, Instant endsAt) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("alertname", alertname(t.rule()));
    labels.put("recipe", t.recipe());
    Optional.ofNullable(t.match().get("model_name")).ifPresent(m -> labels.put("model_name", m));
    labels.put("rule", t.rule());
    if (t.position() != null) {
      labels.put("position", t.position().toString());
    }
    labels.put("severity", t.severity().key());
    t.routingLabels().forEach(labels::putIfAbsent);
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("summary", SlackMessages.text(t, t.at()));
    annotations.put("description", t.reason());
    t.runbookUrl().ifPresent(u -> annotations.put("runbook_url", u));
    Links.dashboard(grafana, t).ifPresent(u -> annotations.put("dashboard", u));
    Map<String, Object> alert = new LinkedHashMap<>();
    alert.put("labels", labels);
    alert.put("annotations", annotations);
    alert.put(
        "startsAt",
        t.kind() == Transition.Kind.RESOLVED ? t.since().toString() : t.at().toString());
    alert.put("endsAt", endsAt.toString());
    Links.dashboard(grafana, t).ifPresent(u -> alert.put("generatorURL", u));
    return alert;
  }

  /** {@code acceptance_rate} becomes {@code SpecDecodeAcceptanceRate}. */
  static String alertname(String rule) {
    return AlertingRules.alertname(rule);
  }
}
