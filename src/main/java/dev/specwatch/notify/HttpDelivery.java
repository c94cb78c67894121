package dev.specwatch.notify;

import dev.specwatch.http.HttpClients;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import okhttp3.Request;
import okhttp3.Response;

/** HTTP delivery for the webhook, Alertmanager, Grafana and PagerDuty notifiers. */
final class HttpDelivery {

  /** Compact JSON for request bodies (the state files are indented, wire formats are not). */
  static final com.fasterxml.jackson.databind.ObjectWriter JSON_BODY =
      DurableFiles.JSON
          .writer()
          .without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);

  private HttpDelivery() {}

  /**
   * Executes a request: 2xx is delivered; 429 and 5xx and transport errors are retried (Retry-After
   * honoured); other statuses are permanent. {@code what} names the endpoint without secrets.
   */
  static DeliveryResult execute(Request request, String what) {
    try (Response response = HttpClients.forUrl(request.url()).newCall(request).execute()) {
      int status = response.code();
      if (status >= 200 && status < 300) {
        return DeliveryResult.delivered();
      }
      String body = response.body() == null ? "" : response.body().string();
      String detail =
          what + " returned HTTP " + status + (body.isBlank() ? "" : ": " + abbreviate(body));
      if (status == 429) {
        // Without a usable Retry-After: the worker's backoff (zero means "use it").
        Duration after =
            RetryAfter.parse(response.header("Retry-After"), Instant.now()).orElse(Duration.ZERO);
        return new DeliveryResult.Retry(after, detail);
      }
      if (status >= 500) {
        return DeliveryResult.retry(detail);
      }
      return new DeliveryResult.Permanent(detail);
    } catch (IOException e) {
      return DeliveryResult.retry(
          what
              + " unreachable: "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : " " + e.getMessage()));
    }
  }

  static String abbreviate(String text) {
    String oneLine = text.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
  }

  /** scheme://host:port/path of a URL, without userinfo or query. */
  static String endpoint(URI uri) {
    return uri.getScheme()
        + "://"
        + uri.getHost()
        + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
        + (uri.getPath() == null ? "" : uri.getPath());
  }
}
