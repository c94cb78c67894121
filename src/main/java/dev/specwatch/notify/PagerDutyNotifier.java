package dev.specwatch.notify;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.notify.slack.SlackMessages;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * PagerDuty's Events API v2 (docs/NOTIFICATIONS.md): {@code trigger} when an alert fires and {@code
 * resolve} when it resolves, both with the dedup key {@code specwatch/<alert id>}, so PagerDuty
 * folds retries, re-sends after a crash and repeats into one alert. A 202 is delivered; 429 and 5xx
 * are retried; 400 (an invalid event or routing key) is permanent.
 *
 * <p>Repeats (optional, {@code repeat_interval}) trigger again with the same dedup key: nothing new
 * while PagerDuty's alert is open, a new incident when PagerDuty resolved it by itself (a service's
 * auto-resolve) while specwatch still sees the regression. When each alert was last triggered is
 * kept in memory: after a restart the first repeat comes a whole interval later.
 */
public final class PagerDutyNotifier implements Notifier {
  private static final MediaType JSON = MediaType.get("application/json");

  /** The Events API's limit on {@code payload.summary}. */
  static final int SUMMARY_MAX = 1024;

  private final NotifierConfig.PagerDuty config;
  private final Optional<URI> ui;
  private final Clock clock;
  private final Map<String, Instant> triggeredAt = new ConcurrentHashMap<>();

  /**
   * @param ui the daemon's external URL (the incident links to the recipe's page)
   */
  public PagerDutyNotifier(NotifierConfig.PagerDuty config, Optional<URI> ui, Clock clock) {
    this.config = config;
    this.ui = ui;
    this.clock = clock;
  }

  @Override
  public String name() {
    return config.name();
  }

  @Override
  public Optional<Duration> repeatInterval() {
    return config.repeatInterval();
  }

  @Override
  public boolean repeatDue(Transition firing, Instant now) {
    if (config.repeatInterval().isEmpty()) {
      return false;
    }
    Instant last = triggeredAt.putIfAbsent(firing.alertId(), now);
    return last != null && !last.plus(config.repeatInterval().get()).isAfter(now);
  }

  @Override
  public DeliveryResult send(Intent intent) {
    Transition t = intent.transition();
    byte[] body;
    try {
      body = HttpDelivery.JSON_BODY.writeValueAsBytes(event(intent, config.routingKey().reveal()));
    } catch (JsonProcessingException e) {
      return new DeliveryResult.Permanent("cannot encode: " + e.getOriginalMessage());
    }
    Request request =
        new Request.Builder()
            .url(config.url().toString())
            .header("User-Agent", "specwatch")
            .post(RequestBody.create(body, JSON))
            .build();
    DeliveryResult result =
        HttpDelivery.execute(request, "pagerduty " + HttpDelivery.endpoint(config.url()));
    if (result instanceof DeliveryResult.Delivered) {
      if (intent.kind() == Intent.Kind.RESOLVED) {
        triggeredAt.remove(t.alertId());
      } else {
        triggeredAt.put(t.alertId(), clock.instant());
      }
    }
    return result;
  }

  /** PagerDuty's dedup key of an alert: the same for its trigger, repeats and resolve. */
  static String dedupKey(Transition t) {
    String key = "specwatch/" + t.alertId();
    return key.length() <= 255 ? key : key.substring(0, 255);
  }

  /** The Events API v2 document of one intent. */
  Map<String, Object> event(Intent intent, String routingKey) {
    Transition t = intent.transition();
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("routing_key", routingKey);
    event.put("event_action", intent.kind() == Intent.Kind.RESOLVED ? "resolve" : "trigger");
    event.put("dedup_key", dedupKey(t));
    if (intent.kind() == Intent.Kind.RESOLVED) {
      return event; // a resolve needs nothing else
    }
    String summary = SlackMessages.text(t, t.at());
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put(
        "summary", summary.length() <= SUMMARY_MAX ? summary : summary.substring(0, SUMMARY_MAX));
    payload.put("source", t.recipe());
    payload.put("severity", t.severity().key());
    payload.put("timestamp", t.at().toString());
    payload.put("component", t.match().getOrDefault("model_name", t.recipe()));
    payload.put("group", t.recipe());
    payload.put("class", SlackMessages.rule(t));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("alert_id", t.alertId());
    details.put("reason", t.reason());
    details.put("value", t.value());
    details.put("threshold", t.threshold());
    details.put("since", t.since().toString());
    details.put("labels", t.routingLabels());
    t.runbookUrl().ifPresent(r -> details.put("runbook_url", r));
    payload.put("custom_details", details);
    event.put("payload", payload);
    event.put("client", "specwatch");
    List<Map<String, String>> links = new ArrayList<>();
    ui.ifPresent(
        base -> {
          String url =
              base.toString().replaceAll("/+$", "")
                  + "/recipes/"
                  + URLEncoder.encode(t.recipe(), StandardCharsets.UTF_8).replace("+", "%20");
          event.put("client_url", url);
          links.add(Map.of("href", url, "text", "Recipe in specwatch"));
        });
    t.runbookUrl().ifPresent(r -> links.add(Map.of("href", r, "text", "Runbook")));
    if (!links.isEmpty()) {
      event.put("links", links);
    }
    return event;
  }

  @Override
  public String toString() {
    return "pagerduty "
        + config.name()
        + " ("
        + config.url().getHost().toLowerCase(Locale.ROOT)
        + ")";
  }
}
