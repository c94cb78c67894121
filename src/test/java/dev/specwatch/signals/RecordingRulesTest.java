package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RecordingRulesTest {
  @Test
  void committedRulesFileIsTheRenderOfTheEngineProfile() throws IOException {
    String committed =
        Files.readString(Path.of("rules/vllm-spec-decode.rules.yaml"), StandardCharsets.UTF_8);
    assertThat(committed)
        .as("rules/vllm-spec-decode.rules.yaml is stale: run `make rules` and commit the result")
        .isEqualTo(RecordingRules.render());
  }

  @Test
  void keepsTheRuleNamesExistingDashboardsUse() {
    assertThat(RecordingRules.render())
        .contains("record: vllm:spec_decode_acceptance_rate:rate1m\n")
        .contains("record: vllm:spec_decode_mean_accepted_length:rate1m\n")
        .contains("record: vllm:spec_decode_draft_tokens_per_second:rate1m\n")
        .contains("record: vllm:spec_decode_accepted_tokens_per_second:rate1m\n")
        .contains("record: vllm:spec_decode_acceptance_rate_by_pos:rate1m\n")
        .contains("record: vllm:generation_tokens_per_second:rate1m\n")
        .contains("record: vllm:prompt_tokens_per_second:rate1m\n")
        .contains("record: vllm:total_tokens_per_second:rate1m\n");
  }
}
