package dev.specwatch.notify;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.notify.slack.SlackMessages;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * Annotates the dashboard ({@code POST /api/annotations}) when an alert fires and when it resolves,
 * so the panels show when efficiency regressed. Needs a service-account token with the
 * annotations:write permission.
 */
public final class GrafanaNotifier implements Notifier {
  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
  private final NotifierConfig.Grafana config;

  public GrafanaNotifier(NotifierConfig.Grafana config) {
    this.config = config;
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
    List<String> tags =
        new ArrayList<>(
            List.of(
                "specwatch",
                t.recipe(),
                t.rule(),
                intent.kind() == Intent.Kind.FIRING ? "firing" : "resolved"));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("dashboardUID", config.dashboardUid());
    body.put("time", t.at().toEpochMilli());
    body.put("tags", tags);
    body.put("text", SlackMessages.text(t, t.at()));
    String url = config.url().toString().replaceAll("/+$", "") + "/api/annotations";
    try {
      Request request =
          new Request.Builder()
              .url(url)
              .header("Authorization", "Bearer " + config.token().reveal())
              .post(RequestBody.create(HttpDelivery.JSON_BODY.writeValueAsBytes(body), JSON))
              .build();
      return HttpDelivery.execute(request, "grafana " + HttpDelivery.endpoint(URI.create(url)));
    } catch (JsonProcessingException e) {
      return new DeliveryResult.Permanent("cannot encode: " + e.getOriginalMessage());
    }
  }
}
