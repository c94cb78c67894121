package dev.specwatch.notify;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Durations;
import dev.specwatch.model.NotifierConfig;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * POSTs one JSON document per notification (schema in docs/NOTIFICATIONS.md). Every request names
 * its delivery ({@code X-Specwatch-Delivery}, the same on every retry of one notification) and the
 * time it was sent ({@code X-Specwatch-Timestamp}, Unix seconds). With a secret, {@code
 * X-Specwatch-Signature-V2: sha256=<hex>} is HMAC-SHA256 of {@code <timestamp>.<delivery>.<body>},
 * so a receiver that checks the timestamp (5 minutes, as Slack and Stripe) and remembers delivery
 * ids refuses a captured request replayed. {@code X-Specwatch-Signature} (the body alone, which a
 * replay passes) is still sent for receivers written before; docs/NOTIFICATIONS.md says how to
 * move.
 */
public final class WebhookNotifier implements Notifier {
  /** HMAC of the body alone: replayable, kept for receivers written before the V2 signature. */
  public static final String SIGNATURE_HEADER = "X-Specwatch-Signature";

  public static final String SIGNATURE_V2_HEADER = "X-Specwatch-Signature-V2";
  public static final String TIMESTAMP_HEADER = "X-Specwatch-Timestamp";
  public static final String DELIVERY_HEADER = "X-Specwatch-Delivery";
  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

  private final NotifierConfig.Webhook config;
  private final Optional<URI> grafana;
  private final Clock clock;

  public WebhookNotifier(NotifierConfig.Webhook config, Optional<URI> grafana) {
    this(config, grafana, Clock.systemUTC());
  }

  public WebhookNotifier(NotifierConfig.Webhook config, Optional<URI> grafana, Clock clock) {
    this.config = config;
    this.grafana = grafana;
    this.clock = clock;
  }

  @Override
  public String name() {
    return config.name();
  }

  @Override
  public DeliveryResult send(Intent intent) {
    byte[] body;
    try {
      body = HttpDelivery.JSON_BODY.writeValueAsBytes(document(intent, grafana));
    } catch (JsonProcessingException e) {
      return new DeliveryResult.Permanent("cannot encode: " + e.getOriginalMessage());
    }
    String timestamp = Long.toString(clock.instant().getEpochSecond());
    Request.Builder request =
        new Request.Builder()
            .url(config.url().toString())
            .post(RequestBody.create(body, JSON))
            .header("User-Agent", "specwatch")
            .header("X-Specwatch-Event", intent.kind().name().toLowerCase(Locale.ROOT))
            .header(DELIVERY_HEADER, intent.id())
            .header(TIMESTAMP_HEADER, timestamp);
    config.headers().forEach(request::header);
    config
        .secret()
        .ifPresent(
            s -> {
              request.header(
                  SIGNATURE_V2_HEADER,
                  "sha256=" + hmacSha256(s.reveal(), signed(timestamp, intent.id(), body)));
              request.header(SIGNATURE_HEADER, "sha256=" + hmacSha256(s.reveal(), body));
            });
    return HttpDelivery.execute(request.build(), "webhook " + HttpDelivery.endpoint(config.url()));
  }

  static Map<String, Object> document(Intent intent, Optional<URI> grafana) {
    Transition t = intent.transition();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", 1);
    doc.put("event", intent.kind().name().toLowerCase(Locale.ROOT));
    doc.put("alert_id", t.alertId());
    doc.put("sequence", t.sequence());
    doc.put("recipe", t.recipe());
    doc.put("rule", t.rule());
    doc.put("position", t.position());
    doc.put("severity", t.severity());
    doc.put("reason", t.reason());
    doc.put("value", t.value());
    doc.put("threshold", t.threshold());
    doc.put("window", Durations.format(t.window()));
    doc.put("since", t.since().toString());
    doc.put("at", t.at().toString());
    doc.put("match", t.match());
    doc.put("labels", t.routingLabels());
    doc.put("runbook_url", t.runbookUrl().orElse(null));
    doc.put("position_acceptance", t.positionAcceptance());
    doc.put("dashboard_url", Links.dashboard(grafana, t).orElse(null));
    return doc;
  }

  /** What the V2 signature covers: {@code <timestamp>.<delivery>.<body>}. */
  static byte[] signed(String timestamp, String delivery, byte[] body) {
    byte[] head = (timestamp + "." + delivery + ".").getBytes(StandardCharsets.UTF_8);
    byte[] out = java.util.Arrays.copyOf(head, head.length + body.length);
    System.arraycopy(body, 0, out, head.length, body.length);
    return out;
  }

  public static String hmacSha256(String secret, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }
}
