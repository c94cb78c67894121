package dev.specwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The dashboards' contract (issue #2): what users and links rely on. */
class DashboardTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static JsonNode load(String name) throws IOException {
    return JSON.readTree(Path.of("deploy/grafana/dashboards", name).toFile());
  }

  static List<JsonNode> targets(JsonNode dashboard) {
    List<JsonNode> out = new ArrayList<>();
    dashboard.path("panels").forEach(p -> p.path("targets").forEach(out::add));
    return out;
  }

  @Test
  void specDecodeDashboardHasItsIdentityAndFivePanels() throws IOException {
    JsonNode d = load("vllm-spec-decode.json");
    assertThat(d.path("uid").asText()).isEqualTo("vllm-spec-decode");
    assertThat(d.path("title").asText()).isEqualTo("vLLM Speculative Decoding");
    assertThat(d.path("tags")).extracting(JsonNode::asText).contains("spec-decode");
    assertThat(d.path("refresh").asText()).isEqualTo("5s");
    assertThat(d.path("time").path("from").asText()).isEqualTo("now-15m");
    JsonNode variable = d.path("templating").path("list").get(0);
    assertThat(variable.path("name").asText()).isEqualTo("model_name");
    assertThat(variable.path("multi").asBoolean()).isTrue();
    assertThat(variable.path("includeAll").asBoolean()).isTrue();

    JsonNode panels = d.path("panels");
    assertThat(panels)
        .extracting(p -> p.path("type").asText())
        .containsExactly("stat", "stat", "stat", "timeseries", "bargauge");
    // Stats are instant queries so they show "No value" once traffic stops.
    for (int i = 0; i < 3; i++) {
      assertThat(panels.get(i).path("targets").get(0).path("instant").asBoolean()).isTrue();
      assertThat(panels.get(i).path("targets").get(0).path("range").asBoolean()).isFalse();
    }
    assertThat(panels.get(0).path("fieldConfig").path("defaults").path("unit").asText())
        .isEqualTo("percentunit");
    JsonNode byPosition = panels.get(4);
    assertThat(byPosition.path("targets").get(0).path("legendFormat").asText())
        .isEqualTo("Position {{position}}");
    JsonNode defaults = byPosition.path("fieldConfig").path("defaults");
    assertThat(defaults.path("unit").asText()).isEqualTo("percentunit");
    assertThat(defaults.path("min").asDouble()).isEqualTo(0.0);
    assertThat(defaults.path("max").asDouble()).isEqualTo(1.0);
  }

  @Test
  void everyQueryUsesTheProvisionedDatasourceAndAModelFilter() throws IOException {
    for (String name : List.of("vllm-spec-decode.json", "vllm-throughput.json")) {
      JsonNode d = load(name);
      assertThat(targets(d))
          .isNotEmpty()
          .allSatisfy(
              t -> {
                assertThat(t.path("datasource").path("uid").asText()).isEqualTo("prometheus");
                assertThat(t.path("expr").asText()).contains("model_name=~\"$model_name\"");
              });
      d.path("panels")
          .forEach(
              p ->
                  assertThat(p.path("datasource").path("uid").asText())
                      .as(name)
                      .isEqualTo("prometheus"));
    }
  }
}
