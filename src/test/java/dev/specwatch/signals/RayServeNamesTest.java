package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Engine;
import dev.specwatch.model.LabelMatcher;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** vLLM's queries over Ray Serve LLM's names (docs/ENGINES.md): none of vLLM's own names left. */
class RayServeNamesTest {
  private static final QueryScope SCOPE =
      new QueryScope(
          List.of("model_name"), List.of(LabelMatcher.equal("job", "ray")), Duration.ofMinutes(1));

  @Test
  void everySignalReadsTheRayNames() {
    EngineProfile ray = EngineProfile.of(Engine.RAY_VLLM);
    assertThat(ray.name()).isEqualTo("ray_vllm");
    for (Signal s : ray.supported()) {
      if (s == Signal.ACCEPTANCE_SPREAD) {
        continue; // defined over a baseline scope only
      }
      assertThat(ray.query(s, SCOPE)).as(s.key()).doesNotContain("vllm:").contains("ray_vllm_");
    }
    assertThat(ray.query(Signal.MEAN_ACCEPTED_LENGTH, SCOPE))
        .contains("rate(ray_vllm_spec_decode_num_accepted_tokens_total{job=\"ray\"}[1m])")
        .contains("rate(ray_vllm_spec_decode_num_drafts_total{job=\"ray\"}[1m])");
    assertThat(ray.discoverySeries()).allSatisfy(n -> assertThat(n).startsWith("ray_vllm_"));
    assertThat(ray.speculativeSeries()).allSatisfy(n -> assertThat(n).startsWith("ray_vllm_"));
    assertThat(ray.fullShapeSeries()).contains("ray_vllm_spec_decode_num_drafts_total");
    assertThat(ray.finishedRequestHistograms()).contains("ray_vllm_");
  }

  @Test
  void theServedCounterIsVllmsUnderRaysPrefix() {
    assertThat(EngineProfile.SERVED.get(Engine.RAY_VLLM))
        .isEqualTo(VllmProfile.ray(VllmProfile.GENERATION_TOKENS))
        .isEqualTo("ray_vllm_generation_tokens_total");
    assertThat(VllmProfile.ray("vllm:spec_decode_num_accepted_tokens_per_pos_total"))
        .isEqualTo("ray_vllm_spec_decode_num_accepted_tokens_per_pos_total");
  }

  @Test
  void vllmItselfKeepsItsNames() {
    EngineProfile vllm = EngineProfile.of(Engine.VLLM);
    assertThat(vllm.name()).isEqualTo("vllm");
    assertThat(vllm.query(Signal.ACCEPTANCE_RATE, SCOPE)).doesNotContain("ray_");
    assertThat(vllm.discoverySeries()).allSatisfy(n -> assertThat(n).startsWith("vllm:"));
    assertThat(vllm.finishedRequestHistograms()).contains("vllm:");
  }
}
