package dev.specwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.specwatch.cli.CliRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * deploy/kubernetes/base's generated files are what specwatch and the dashboards say now (run
 * {@code make kubernetes} after changing either). The manifests' schemas are checked by {@code make
 * schema-check} (Kubernetes' and prometheus-operator's types, in make test).
 */
class KubernetesManifestsTest {
  final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());

  @Test
  void thePrometheusRuleIsTheRecordingRulesRenderedForTheOperator() throws Exception {
    CliRunner.Result r = CliRunner.run("rules", "render", "--format", "prometheus-operator");
    assertThat(r.exit()).isZero();
    assertThat(Files.readString(KubernetesManifests.BASE.resolve("prometheusrule.yaml")))
        .as("run make kubernetes")
        .isEqualTo(r.out());
    JsonNode rule = yaml.readTree(r.out());
    assertThat(rule.path("kind").asText()).isEqualTo("PrometheusRule");
    JsonNode file = yaml.readTree(Files.readString(Path.of("rules/vllm-spec-decode.rules.yaml")));
    assertThat(rule.path("spec").path("groups")).isEqualTo(file.path("groups"));
  }

  @Test
  void theDashboardsConfigMapCarriesEveryDashboardForTheSidecar() throws Exception {
    String expected = KubernetesManifests.dashboardsConfigMap();
    assertThat(Files.readString(KubernetesManifests.BASE.resolve("dashboards.yaml")))
        .as("run make kubernetes")
        .isEqualTo(expected);
    JsonNode map = yaml.readTree(expected);
    JsonNode label = map.path("metadata").path("labels").path("grafana_dashboard");
    assertThat(label.isTextual()).as("a label value is a string, not the number 1").isTrue();
    assertThat(label.asText()).isEqualTo("1");
    ObjectMapper json = new ObjectMapper();
    assertThat(json.readTree(map.path("data").path("vllm-spec-decode.json").asText()))
        .isEqualTo(
            json.readTree(
                Files.readString(
                    Path.of("deploy/grafana/dashboards/vllm-spec-decode.json"),
                    StandardCharsets.UTF_8)));
  }

  @Test
  void rulesRenderRefusesANameKubernetesWouldRefuse() {
    CliRunner.Result r =
        CliRunner.run("rules", "render", "--format", "prometheus-operator", "--name", "Spec_Watch");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--name 'Spec_Watch' is not a valid Kubernetes name");
    CliRunner.Result alerts =
        CliRunner.run(
            "rules",
            "render",
            "--alerts",
            "--config",
            "deploy/specwatch.example.yaml",
            "--format",
            "prometheus-operator",
            "--namespace",
            "monitoring",
            "--label",
            "release=kube-prometheus-stack");
    assertThat(alerts.exit()).as(alerts.err()).isZero();
    assertThat(alerts.out())
        .contains("kind: PrometheusRule")
        .contains("  name: specwatch-alerts\n  namespace: monitoring\n")
        .contains("    release: \"kube-prometheus-stack\"\n");
  }
}
