package dev.specwatch.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A deliberately plain Prometheus query helper for tests, independent of the production client, so
 * tests of the rules and dashboards do not trust the code they check.
 */
public final class PromApi {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI base;

  public PromApi(URI base) {
    this.base = base;
  }

  public record Sample(Map<String, String> labels, double value) {}

  /** Instant query now; fails on any API error. */
  public List<Sample> query(String promql) {
    JsonNode data = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    List<Sample> out = new ArrayList<>();
    for (JsonNode item : data.path("result")) {
      out.add(
          new Sample(
              labels(item.path("metric")), Double.parseDouble(item.path("value").get(1).asText())));
    }
    return out;
  }

  /** Values of a single-series query, or NaN when there is no sample. */
  public double scalar(String promql) {
    List<Sample> samples = query(promql);
    if (samples.isEmpty()) {
      return Double.NaN;
    }
    if (samples.size() > 1) {
      throw new AssertionError("expected one series for " + promql + ", got " + samples);
    }
    return samples.get(0).value();
  }

  public JsonNode get(String pathAndQuery) {
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve(pathAndQuery))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode body = JSON.readTree(response.body());
      if (response.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
        throw new AssertionError(
            "query failed (" + response.statusCode() + "): " + response.body());
      }
      return body.path("data");
    } catch (IOException e) {
      throw new AssertionError("prometheus unreachable: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static Map<String, String> labels(JsonNode metric) {
    Map<String, String> labels = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : metric.properties()) {
      labels.put(e.getKey(), e.getValue().asText());
    }
    return labels;
  }
}
