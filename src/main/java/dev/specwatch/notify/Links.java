package dev.specwatch.notify;

import dev.specwatch.alerting.Transition;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/** Links from notifications to the provisioned dashboard (uid vllm-spec-decode). */
public final class Links {
  public static final String DASHBOARD_UID = "vllm-spec-decode";
  private static final Duration BEFORE = Duration.ofMinutes(30);
  private static final Duration AFTER = Duration.ofMinutes(10);

  private Links() {}

  /**
   * The dashboard filtered to the recipe's model, from half an hour before the condition started to
   * now (firing) or ten minutes after the resolve.
   */
  public static Optional<String> dashboard(Optional<URI> grafana, Transition t) {
    if (grafana.isEmpty()) {
      return Optional.empty();
    }
    String base = grafana.get().toString().replaceAll("/+$", "");
    StringBuilder url =
        new StringBuilder(base)
            .append("/d/")
            .append(DASHBOARD_UID)
            .append("/vllm-speculative-decoding?orgId=1");
    String model = t.match().get("model_name");
    if (model != null) {
      url.append("&var-model_name=").append(URLEncoder.encode(model, StandardCharsets.UTF_8));
    }
    url.append("&from=").append(t.since().minus(BEFORE).toEpochMilli());
    url.append("&to=")
        .append(
            t.kind() == Transition.Kind.RESOLVED
                ? Long.toString(t.at().plus(AFTER).toEpochMilli())
                : "now");
    return Optional.of(url.toString());
  }

  /** The dashboard filtered to one model over the last 6 hours (the web UI's links). */
  public static Optional<String> dashboard(Optional<URI> grafana, String modelName) {
    if (grafana.isEmpty()) {
      return Optional.empty();
    }
    String base = grafana.get().toString().replaceAll("/+$", "");
    return Optional.of(
        base
            + "/d/"
            + DASHBOARD_UID
            + "/vllm-speculative-decoding?orgId=1"
            + (modelName == null
                ? ""
                : "&var-model_name=" + URLEncoder.encode(modelName, StandardCharsets.UTF_8))
            + "&from=now-6h&to=now");
  }
}
