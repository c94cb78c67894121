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

  static JsonNode variable(JsonNode dashboard, String name) {
    for (JsonNode v : dashboard.path("templating").path("list")) {
      if (v.path("name").asText().equals(name)) {
        return v;
      }
    }
    throw new AssertionError("no variable " + name);
  }

  @Test
  void specDecodeDashboardMatchesVllmsOwnAndCoversEveryEngine() throws IOException {
    JsonNode d = load("vllm-spec-decode.json");
    assertThat(d.path("uid").asText()).as("links keep working").isEqualTo("vllm-spec-decode");
    assertThat(d.path("title").asText()).isEqualTo("Speculative Decoding");
    assertThat(d.path("tags")).extracting(JsonNode::asText).contains("spec-decode");
    assertThat(d.path("refresh").asText()).isEqualTo("5s");
    assertThat(d.path("time").path("from").asText()).isEqualTo("now-15m");
    assertThat(d.path("templating").path("list"))
        .extracting(v -> v.path("name").asText())
        .containsExactly("datasource", "model_name", "job", "instance");
    assertThat(variable(d, "datasource").path("type").asText()).isEqualTo("datasource");
    for (String name : List.of("model_name", "job", "instance")) {
      assertThat(variable(d, name).path("multi").asBoolean()).as(name).isTrue();
      assertThat(variable(d, name).path("includeAll").asBoolean()).as(name).isTrue();
    }

    JsonNode panels = d.path("panels");
    assertThat(panels)
        .filteredOn(p -> p.path("type").asText().equals("row"))
        .extracting(p -> p.path("title").asText())
        .containsExactly("vLLM", "SGLang", "TensorRT-LLM", "llama.cpp", "vLLM behind Ray Serve");
    // What vLLM's vllm_speculative_decoding.json shows, over time, not only as a stat.
    List<String> exprs = targets(d).stream().map(t -> t.path("expr").asText()).toList();
    assertThat(exprs)
        .anyMatch(e -> e.startsWith("vllm:spec_decode_acceptance_rate:rate1m"))
        .anyMatch(e -> e.startsWith("vllm:spec_decode_mean_accepted_length:rate1m"))
        .anyMatch(
            e -> e.startsWith("count by (model_name) (vllm:spec_decode_acceptance_rate_by_pos"))
        .anyMatch(e -> e.startsWith("vllm:spec_decode_acceptance_rate_by_pos:rate1m"))
        .anyMatch(e -> e.contains("instance=~\"$instance\""))
        .anyMatch(e -> e.startsWith("sglang:spec_decode_mean_accepted_length:rate1m"))
        .anyMatch(e -> e.startsWith("sglang:spec_decode_acceptance_rate:rate1m"))
        // SGLang's k + 1 as its servers report it, which adaptive speculation moves
        .anyMatch(e -> e.startsWith("max by (model_name) (sglang:spec_num_draft_tokens"))
        .anyMatch(e -> e.startsWith("llamacpp:spec_decode_acceptance_rate_by_pos:rate1m"))
        .anyMatch(e -> e.startsWith("ray_vllm:spec_decode_acceptance_rate_by_pos:rate1m"))
        .anyMatch(e -> e.startsWith("trtllm:spec_decode_draft_overhead:avg1m"))
        .anyMatch(e -> e.startsWith("trtllm:spec_decode_acceptance_rate_by_pos:rate1m"));
    // trtllm-serve labels every series model_name="undefined": its servers are told apart by job.
    assertThat(targets(d))
        .filteredOn(t -> t.path("expr").asText().contains("trtllm:"))
        .isNotEmpty()
        .allSatisfy(
            t -> {
              assertThat(t.path("expr").asText()).contains("job=~\"$job\"");
              assertThat(t.path("legendFormat").asText()).startsWith("{{job}}");
            });
    // llama-server labels nothing: one server, one model, told apart by job alone (a model_name
    // matcher would hide it whenever a model is picked).
    assertThat(targets(d))
        .filteredOn(t -> t.path("expr").asText().contains("llamacpp:"))
        .hasSizeGreaterThanOrEqualTo(6)
        .allSatisfy(
            t -> {
              assertThat(t.path("expr").asText())
                  .contains("job=~\"$job\"")
                  .doesNotContain("model_name");
              assertThat(t.path("legendFormat").asText()).startsWith("{{job}}");
            });
    // Every engine's series can be picked: the variables read each engine's names.
    assertThat(variable(d, "model_name").path("query").path("query").asText())
        .contains("ray_vllm:spec_decode_draft_tokens_per_second:rate1m");
    assertThat(variable(d, "job").path("query").path("query").asText())
        .contains("llamacpp:tokens_predicted_total")
        .contains("ray_vllm_generation_tokens_total");
    assertThat(panels)
        .filteredOn(p -> p.path("type").asText().equals("timeseries"))
        .hasSizeGreaterThanOrEqualTo(14)
        .allSatisfy(
            p ->
                assertThat(p.path("targets"))
                    .allMatch(t -> t.path("range").asBoolean() && !t.path("instant").asBoolean()));
    // Rejected draft tokens, and the share of output tokens that came from accepted drafts.
    assertThat(panels)
        .extracting(p -> p.path("title").asText())
        .contains(
            "Proposed, accepted and rejected draft tokens / second (1m)",
            "Share of output from accepted drafts over time",
            "Mean accepted length over time, with its k + 1 bound");
    // Stats are instant queries (No value once traffic stops) and judge nothing by colour: what
    // is healthy depends on k (a healthy k=1 model has a length below 2); thresholds are the
    // recipes'.
    assertThat(panels)
        .filteredOn(p -> p.path("type").asText().equals("stat"))
        .hasSize(4)
        .allSatisfy(
            p -> {
              JsonNode t = p.path("targets").get(0);
              assertThat(t.path("instant").asBoolean()).isTrue();
              assertThat(t.path("range").asBoolean()).isFalse();
              JsonNode color = p.path("fieldConfig").path("defaults").path("color");
              assertThat(color.path("mode").asText()).isEqualTo("fixed");
              assertThat(p.path("fieldConfig").path("defaults").has("thresholds")).isFalse();
            });
    // The seed's at-a-glance panel: which positions contribute right now, one bar per position.
    assertThat(panels)
        .filteredOn(p -> p.path("type").asText().equals("bargauge"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path("title").asText()).startsWith("Acceptance by draft position, now");
              JsonNode t = p.path("targets").get(0);
              assertThat(t.path("instant").asBoolean()).isTrue();
              assertThat(t.path("range").asBoolean()).isFalse();
              assertThat(t.path("expr").asText())
                  .startsWith("vllm:spec_decode_acceptance_rate_by_pos:rate1m");
              assertThat(t.path("legendFormat").asText()).isEqualTo("Position {{position}}");
              JsonNode defaults = p.path("fieldConfig").path("defaults");
              assertThat(defaults.path("unit").asText()).isEqualTo("percentunit");
              assertThat(defaults.path("max").asDouble()).isEqualTo(1.0);
              assertThat(defaults.has("thresholds")).isFalse();
              assertThat(p.path("repeat").asText()).isEqualTo("model_name");
            });
    assertThat(panels)
        .filteredOn(p -> p.path("title").asText().startsWith("Acceptance by draft position over"))
        .singleElement()
        .satisfies(
            p -> {
              JsonNode defaults = p.path("fieldConfig").path("defaults");
              assertThat(defaults.path("unit").asText()).isEqualTo("percentunit");
              assertThat(defaults.path("min").asDouble()).isEqualTo(0.0);
              assertThat(defaults.path("max").asDouble()).isEqualTo(1.0);
              assertThat(p.path("targets").get(0).path("legendFormat").asText())
                  .isEqualTo("{{model_name}} position {{position}}");
            });
  }

  @Test
  void everyQueryUsesTheDatasourceVariableAndAModelFilter() throws IOException {
    for (String name : List.of("vllm-spec-decode.json", "vllm-throughput.json")) {
      JsonNode d = load(name);
      assertThat(variable(d, "datasource").path("current").path("value").asText())
          .as("the provisioned datasource's uid (deploy/grafana/provisioning)")
          .isEqualTo("prometheus");
      assertThat(targets(d))
          .isNotEmpty()
          .allSatisfy(
              t -> {
                assertThat(t.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
                String expr = t.path("expr").asText();
                if (expr.startsWith("llamacpp:")) {
                  assertThat(expr).contains("job=~\"$job\"");
                } else {
                  assertThat(expr).contains("model_name=~\"$model_name\"");
                }
              });
      d.path("panels")
          .forEach(
              p ->
                  assertThat(p.path("datasource").path("uid").asText())
                      .as(name)
                      .isIn("${datasource}", ""));
    }
  }
}
