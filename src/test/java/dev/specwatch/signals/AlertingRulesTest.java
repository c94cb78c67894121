package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AlertingRulesTest {
  @Test
  void committedAlertingRulesAreTheRenderOfTheShippedPolicies() throws IOException {
    SpecwatchConfig c =
        new ConfigLoader(Map.<String, String>of()::get)
            .load(Path.of("deploy/specwatch.example.yaml"));
    String committed =
        Files.readString(
            Path.of("alerts/prometheus/specwatch.alerts.yaml"), StandardCharsets.UTF_8);
    assertThat(committed)
        .as("alerts/prometheus/specwatch.alerts.yaml is stale: run `make rules` and commit it")
        .isEqualTo(
            AlertingRules.render(c.policies(), c.evaluation().window(), c.evaluation().interval()));
  }

  @Test
  void rendersEveryThresholdRuleWithItsTimingLabelsAndGate() throws IOException {
    SpecwatchConfig c =
        new ConfigLoader(Map.<String, String>of()::get)
            .load(Path.of("deploy/specwatch.example.yaml"));
    String rendered =
        AlertingRules.render(c.policies(), c.evaluation().window(), c.evaluation().interval());
    assertThat(rendered)
        .contains("  - name: specwatch-qwen3.8-27b-nvfp4\n    interval: 30s\n")
        .contains("      - alert: SpecDecodeAcceptanceRate\n")
        .contains("      - alert: SpecDecodeMeanAcceptedLength\n")
        .contains("      - alert: SpecDecodePositionAcceptance\n")
        .contains("        for: 5m\n        keep_firing_for: 5m\n")
        .contains("model_name=\"unsloth/Qwen3.8-27B-NVFP4\"")
        .contains(">= 500)")
        .contains("          position: \"0\"\n")
        .contains("          runbook_url: \"https://wiki.example.com/runbooks/mtp-acceptance\"");
  }

  @Test
  void noPoliciesRenderAnEmptyRuleFile() {
    assertThat(AlertingRules.render(List.of(), Duration.ofMinutes(5), Duration.ofSeconds(30)))
        .endsWith("groups: []\n");
  }
}
