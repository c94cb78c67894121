package dev.specwatch.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.model.SpecwatchConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpeedupBaselineConfigTest {
  @TempDir Path dir;

  private Path write(String... policies) throws Exception {
    Path alerts = dir.resolve("alerts");
    Files.createDirectories(alerts);
    for (int i = 0; i < policies.length; i++) {
      Files.writeString(alerts.resolve("p" + i + ".yaml"), policies[i]);
    }
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(config, "prometheus: {url: \"http://127.0.0.1:9\"}\npolicies: alerts\n");
    return config;
  }

  @Test
  void aDeploymentWithoutSpeculationIsABaselineNotAWatchedRecipe() throws Exception {
    SpecwatchConfig c =
        new ConfigLoader(k -> null)
            .load(
                write(
                    "recipe: mtp\nmatch: {model_name: q}\nnum_speculative_tokens: 3\n"
                        + "speedup_baseline: plain\n",
                    "recipe: plain\nmatch: {model_name: q-plain}\nnum_speculative_tokens: 0\n"
                        + "thresholds: {throughput: {max_relative_drop: 0.3}}\n"));
    assertThat(c.policies()).extracting(p -> p.recipe()).containsExactly("mtp");
    assertThat(c.baselines()).extracting(p -> p.recipe()).containsExactly("plain");
    assertThat(c.policies().get(0).speedupBaseline()).contains("plain");
    assertThat(c.baselines().get(0).thresholds().throughput()).isPresent();
    assertThat(c.recipes()).extracting(p -> p.recipe()).containsExactly("mtp", "plain");
  }

  @Test
  void aBaselineMustExistBeAnotherRecipeOfTheSameEngineAndTakeNoThresholds() throws Exception {
    Path config =
        write(
            "recipe: a\nmatch: {model_name: a}\nnum_speculative_tokens: 3\n"
                + "speedup_baseline: plian\n",
            "recipe: b\nmatch: {model_name: b}\nnum_speculative_tokens: 3\n"
                + "speedup_baseline: b\n",
            "recipe: c\nengine: sglang\nmatch: {model_name: c}\nnum_speculative_tokens: 3\n"
                + "speedup_baseline: plain2\n",
            "recipe: plain\nmatch: {model_name: p}\nnum_speculative_tokens: 0\n"
                + "thresholds: {acceptance_rate: {below: 0.5}}\n",
            "recipe: plain2\nmatch: {model_name: p2}\nnum_speculative_tokens: 0\n",
            "recipe: d\nmatch: {model_name: d}\nnum_speculative_tokens: 3\n"
                + "speedup_baseline: plain2\nthresholds: {speedup: {below: 1.1, over: 30m}}\n",
            "recipe: e\nmatch: {model_name: e}\nnum_speculative_tokens: 3\n"
                + "thresholds: {speedup: {below: 1.1}}\n");
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(config))
        .hasMessageContaining("p0.yaml:4:19: speedup_baseline: no recipe 'plian'")
        .hasMessageContaining("p1.yaml:4:19: speedup_baseline: names the recipe itself")
        .hasMessageContaining(
            "p2.yaml:5:19: speedup_baseline: recipe 'plain2' runs on vllm, this one on sglang")
        .hasMessageContaining(
            "p3.yaml:4:14: thresholds.acceptance_rate: a deployment without speculation"
                + " (num_speculative_tokens: 0) is watched for its throughput only")
        .hasMessageContaining("thresholds.speedup.over: must be at least 1h")
        .hasMessageContaining("p6.yaml:1:1: thresholds.speedup: needs speedup_baseline");
  }
}
