package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Policy;
import dev.specwatch.signals.SglangProfile;
import dev.specwatch.signals.TrtllmProfile;
import dev.specwatch.signals.VllmProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each reason a recipe reads no data, worked out from a listing of the size `make scale-bench`
 * meets (6,667 served models; 3,334 recipes without data): the lookups are indexed by metric, label
 * and value, and each hint is the one a scan of the whole listing gives.
 */
class NoDataHintsTest {
  private static Map<String, String> series(String metric, String job, String model) {
    return Map.of("__name__", metric, "job", job, "model_name", model);
  }

  private static Policy policy(String recipe, String job, String model) {
    return Policy.builder(recipe, Map.of("job", job, "model_name", model), 3).build();
  }

  @Test
  void aTrtllmPolicyMatchingItsModelsNameIsToldTheServerWritesUndefined() {
    Policy byName =
        Policy.builder("r1", Map.of("job", "trtllm", "model_name", "nvidia/DeepSeek-R1-FP4"), 3)
            .engine(dev.specwatch.model.Engine.TRTLLM)
            .build();
    Map<String, String> hints =
        NoDataHints.hints(
            List.of(byName),
            List.of(series(TrtllmProfile.GENERATION_TOKENS, "trtllm", "undefined")));
    assertThat(hints.get("r1"))
        .isEqualTo(
            "model_name=\"nvidia/DeepSeek-R1-FP4\" selects no series of"
                + " trtllm_generation_tokens_total: trtllm-serve labels every series"
                + " model_name=\"undefined\" (tensorrt_llm/serve/openai_server.py @00057725),"
                + " whatever model it serves; match on its job instead (drop model_name)");
  }

  @Test
  void everyReasonIsFoundInALargeListing() {
    List<Map<String, String>> listing = new ArrayList<>();
    for (int i = 0; i < 6_667; i++) {
      listing.add(series(VllmProfile.GENERATION_TOKENS, "vllm", "m" + i));
      listing.add(series(VllmProfile.DRAFT_TOKENS, "vllm", "m" + i));
    }
    listing.add(series(VllmProfile.GENERATION_TOKENS, "vllm", "plain"));
    listing.add(series(SglangProfile.GENERATION_TOKENS, "sglang", "s1"));
    listing.add(series(VllmProfile.GENERATION_TOKENS, "other", "only-other"));
    List<Policy> lacking = new ArrayList<>();
    lacking.add(policy("typo", "vllm", "m12x"));
    lacking.add(policy("sglang", "sglang", "s1"));
    lacking.add(policy("no-spec", "vllm", "plain"));
    lacking.add(policy("young", "vllm", "m5"));
    lacking.add(policy("far", "vllm", "qwen3-235b-a22b-instruct"));
    lacking.add(policy("job-typo", "vlm", "m3"));
    lacking.add(policy("combination", "other", "m8"));
    for (int i = 0; i < 3_334; i++) {
      lacking.add(policy("absent" + i, "vllm", "absent-model-" + i));
    }
    Map<String, String> hints = NoDataHints.hints(lacking, listing);
    assertThat(hints).hasSize(lacking.size());
    assertThat(hints.get("typo"))
        .isEqualTo(
            "model_name=\"m12x\" selects no series of vllm:generation_tokens_total"
                + " (did you mean model_name=\"m12\"?)");
    assertThat(hints.get("sglang"))
        .isEqualTo(
            "the match finds sglang:generation_tokens_total: set engine: sglang in the policy");
    assertThat(hints.get("no-spec"))
        .isEqualTo(
            "the match finds vllm:generation_tokens_total but no speculative-decoding series: is"
                + " speculative decoding on for this model?");
    assertThat(hints.get("young"))
        .startsWith("the speculative-decoding series exist, but the window");
    assertThat(hints.get("far"))
        .isEqualTo(
            "model_name=\"qwen3-235b-a22b-instruct\" selects no series of"
                + " vllm:generation_tokens_total; it has model_name \"m0\", \"m1\", \"m2\", \"m3\","
                + " \"m4\"");
    assertThat(hints.get("job-typo"))
        .isEqualTo(
            "job=\"vlm\" selects no series of vllm:generation_tokens_total (did you mean"
                + " job=\"vllm\"?)");
    assertThat(hints.get("combination"))
        .isEqualTo(
            "each match label finds vllm:generation_tokens_total series, but no series has them"
                + " all: check the combination");
    assertThat(hints.get("absent3333"))
        .startsWith("model_name=\"absent-model-3333\" selects no series of");
  }

  @Test
  void nothingScrapedIsSaidAsSuch() {
    Map<String, String> hints =
        NoDataHints.hints(List.of(policy("first", "vllm", "m0")), List.of());
    assertThat(hints.get("first"))
        .startsWith(NoDataHints.NOTHING_SCRAPED + "vllm:generation_tokens_total");
  }
}
