package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The draft cost of advise's model from TensorRT-LLM's draft_overhead (docs/SPEEDUP.md). */
class DraftCostTest {
  @TempDir Path dir;

  private Policy policy(int k) throws Exception {
    Path alerts = dir.resolve("alerts");
    Files.createDirectories(alerts);
    Files.writeString(
        alerts.resolve("t.yaml"),
        "recipe: t\nengine: trtllm\nmatch: {model_name: t}\nnum_speculative_tokens: " + k + "\n");
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(config, "prometheus: {url: http://127.0.0.1:9}\npolicies: alerts\n");
    return new ConfigLoader(x -> null).load(config).policies().get(0);
  }

  @Test
  void theShareOfEachIterationSpentDraftingGivesTheCostOfADraftToken() throws Exception {
    // 20 % of each iteration drafting 2 tokens: c*k / (1 + c*k) = 0.2, so c = 0.2 / (0.8 * 2).
    DraftCost c = DraftCost.of(null, 0.2, policy(2));
    assertThat(c.value()).isCloseTo(0.125, within(1e-12));
    double ck = c.value() * 2;
    assertThat(ck / (1 + ck)).isCloseTo(0.2, within(1e-12));
    assertThat(c.source()).contains("draft_overhead").contains("20.0 %");
  }

  @Test
  void aGivenCostWinsAndWithoutAnOverheadTheDefaultIsSaid() throws Exception {
    assertThat(DraftCost.of(0.3, 0.2, policy(2)).value()).isEqualTo(0.3);
    assertThat(DraftCost.of(0.3, 0.2, policy(2)).source()).isEqualTo("--draft-cost");
    DraftCost none = DraftCost.of(null, null, policy(2));
    assertThat(none.value()).isEqualTo(0.1);
    assertThat(none.source()).startsWith("default");
    // An overhead of 0 or 1 says nothing about a cost (idle, or a broken gauge).
    assertThat(DraftCost.of(null, 0.0, policy(2)).source()).startsWith("default");
    assertThat(DraftCost.of(null, 1.0, policy(2)).source()).startsWith("default");
  }
}
