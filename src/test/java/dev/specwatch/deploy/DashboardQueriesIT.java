package dev.specwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.specwatch.testing.Fleet;
import dev.specwatch.testing.PromApi;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every query in both dashboards parses and returns data against a real Prometheus with the
 * project's rules, with the template variable set to "All" (Grafana's allValue ".*") and to one
 * model, and the template variable's own query finds the simulated models.
 */
@ExtendWith(Fleet.Extension.class)
class DashboardQueriesIT {
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(([^,]+),\\s*([a-zA-Z_]+)\\)");

  @Test
  void everyPanelQueryReturnsData(Fleet fleet) throws IOException {
    PromApi api = fleet.api();
    List<String> queries = new ArrayList<>();
    for (String name : List.of("vllm-spec-decode.json", "vllm-throughput.json")) {
      for (JsonNode target : DashboardTest.targets(DashboardTest.load(name))) {
        // Grafana's variables as Grafana fills them: All is ".*", one model is its name (one
        // of each engine's), $__rate_interval at least four scrape intervals.
        String expr =
            target
                .path("expr")
                .asText()
                .replace("$__rate_interval", "1m")
                .replace("$job", ".*")
                .replace("$instance", ".*");
        String model = modelOf(expr);
        queries.add(expr.replace("$model_name", ".*"));
        queries.add(expr.replace("$model_name", model));
      }
    }
    assertThat(queries).hasSizeGreaterThanOrEqualTo(60);
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              for (String query : queries) {
                assertThat(api.query(query)).as(query).isNotEmpty();
              }
            });
  }

  /** A model of the fleet (it-fleet.yaml) served by the engine whose series {@code expr} reads. */
  private static String modelOf(String expr) {
    if (expr.contains("sglang")) {
      // the SGLang release that reports its k, which the acceptance and the k + 1 bound need
      return "it/sglang-active-k";
    }
    if (expr.contains("trtllm")) {
      return "undefined";
    }
    if (expr.contains("ray_vllm")) {
      return "it/ray-serve";
    }
    return "it/steady-mtp"; // vLLM; llama.cpp's queries have no model to pick
  }

  @Test
  void templateVariableQueryFindsTheModels(Fleet fleet) throws IOException {
    PromApi api = fleet.api();
    for (String name : List.of("vllm-spec-decode.json", "vllm-throughput.json")) {
      String definition =
          DashboardTest.variable(DashboardTest.load(name), "model_name")
              .path("query")
              .path("query")
              .asText();
      Matcher m = LABEL_VALUES.matcher(definition);
      assertThat(m.matches()).as(definition).isTrue();
      String path =
          "/api/v1/label/"
              + m.group(2)
              + "/values?match[]="
              + URLEncoder.encode(m.group(1), StandardCharsets.UTF_8);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () ->
                  assertThat(api.get(path))
                      .extracting(JsonNode::asText)
                      .contains("it/steady-mtp")
                      .contains(
                          name.equals("vllm-spec-decode.json") ? "it/ray-serve" : "it/steady-mtp"));
    }
  }
}
