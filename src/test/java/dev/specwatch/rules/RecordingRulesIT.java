package dev.specwatch.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.specwatch.testing.Fleet;
import dev.specwatch.testing.PromApi;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shipped recording rules, loaded into a real Prometheus that scrapes the simulator, return
 * what the scenario implies (it-fleet.yaml). Ratios are exact up to the simulator's integer
 * rounding; token rates need a full 1m window, and then match within rate()'s extrapolation.
 */
@ExtendWith(Fleet.Extension.class)
class RecordingRulesIT {
  private static final String STEADY = "{model_name=\"it/steady-mtp\"}";
  private static final String IDLE = "{model_name=\"it/goes-idle\"}";

  @Test
  void ratioRulesMatchTheScenario(Fleet fleet) {
    PromApi api = fleet.api();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              assertThat(api.scalar("vllm:spec_decode_acceptance_rate:rate1m" + STEADY))
                  .isCloseTo(0.7, within(0.005));
              assertThat(api.scalar("vllm:spec_decode_mean_accepted_length:rate1m" + STEADY))
                  .isCloseTo(3.1, within(0.01));
              Map<String, Double> byPosition = new TreeMap<>();
              api.query("vllm:spec_decode_acceptance_rate_by_pos:rate1m" + STEADY)
                  .forEach(s -> byPosition.put(s.labels().get("position"), s.value()));
              assertThat(byPosition).containsOnlyKeys("0", "1", "2");
              assertThat(byPosition.get("0")).isCloseTo(0.9, within(0.005));
              assertThat(byPosition.get("1")).isCloseTo(0.7, within(0.005));
              assertThat(byPosition.get("2")).isCloseTo(0.5, within(0.005));
            });
    // Two engines were summed into one series without engine/instance labels.
    assertThat(api.query("vllm:spec_decode_acceptance_rate:rate1m" + STEADY))
        .singleElement()
        .satisfies(s -> assertThat(s.labels()).containsOnlyKeys("__name__", "model_name"));
    // vLLM's identity: mean accepted length = 1 + sum of per-position acceptance.
    assertThat(
            api.scalar(
                "1 + sum(vllm:spec_decode_acceptance_rate_by_pos:rate1m"
                    + STEADY
                    + ") - on() vllm:spec_decode_mean_accepted_length:rate1m"
                    + STEADY))
        .isCloseTo(0.0, within(1e-6));
  }

  @Test
  void sglangAndTensorRtRulesMatchTheScenario(Fleet fleet) {
    PromApi api = fleet.api();
    // it-fleet.yaml: SGLang accept length 3.0 in all three shapes (exact from the verify counter,
    // or the gauge); TensorRT-LLM acceptance 0.8 with positions 0.9, 0.8, 0.7.
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              for (String model : List.of("it/sglang-eagle", "it/sglang-dp", "it/sglang-old")) {
                assertThat(
                        api.scalar(
                            "sglang:spec_decode_mean_accepted_length:rate1m{model_name=\""
                                + model
                                + "\"}"))
                    .as(model)
                    .isCloseTo(3.0, within(0.02));
              }
              String trt = "{model_name=\"undefined\"}";
              assertThat(api.scalar("trtllm:spec_decode_acceptance_rate:rate1m" + trt))
                  .isCloseTo(0.8, within(0.005));
              Map<String, Double> byPosition = new TreeMap<>();
              api.query("trtllm:spec_decode_acceptance_rate_by_pos:rate1m" + trt)
                  .forEach(s -> byPosition.put(s.labels().get("position"), s.value()));
              assertThat(byPosition).containsOnlyKeys("0", "1", "2");
              assertThat(byPosition.get("2")).isCloseTo(0.7, within(0.005));
              assertThat(api.scalar("trtllm:spec_decode_draft_overhead:avg1m" + trt))
                  .isCloseTo(0.15, within(1e-9));
            });
    // The exact form answers for the models with the verify counter, the gauge for the other:
    // one series each, never both.
    assertThat(api.query("sglang:spec_decode_mean_accepted_length:rate1m")).hasSize(4);
  }

  @Test
  void sglangAcceptanceUsesTheServersKAndLlamaCppAndRayRulesMatchTheScenario(Fleet fleet) {
    PromApi api = fleet.api();
    // it-fleet.yaml: SGLang as of sglang@016d8605 reports k + 1 = 5, so (3.0 - 1) / 4 = 0.5; the
    // releases that report no k have no acceptance series. llama.cpp (by job) and Ray Serve:
    // acceptance 0.8, accepted length 3.4, positions 0.9, 0.8, 0.7.
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              assertThat(api.query("sglang:spec_decode_acceptance_rate:rate1m"))
                  .singleElement()
                  .satisfies(
                      s -> {
                        assertThat(s.labels()).containsEntry("model_name", "it/sglang-active-k");
                        assertThat(s.value()).isCloseTo(0.5, within(0.01));
                      });
              assertThat(api.scalar("llamacpp:spec_decode_acceptance_rate:rate1m{job=\"vllm\"}"))
                  .isCloseTo(0.8, within(0.005));
              assertThat(
                      api.scalar("llamacpp:spec_decode_mean_accepted_length:rate1m{job=\"vllm\"}"))
                  .isCloseTo(3.4, within(0.02));
              String ray = "{model_name=\"it/ray-serve\"}";
              assertThat(api.scalar("ray_vllm:spec_decode_acceptance_rate:rate1m" + ray))
                  .isCloseTo(0.8, within(0.005));
              assertThat(api.scalar("ray_vllm:spec_decode_mean_accepted_length:rate1m" + ray))
                  .isCloseTo(3.4, within(0.02));
              Map<String, Double> byPosition = new TreeMap<>();
              api.query("ray_vllm:spec_decode_acceptance_rate_by_pos:rate1m" + ray)
                  .forEach(s -> byPosition.put(s.labels().get("position"), s.value()));
              assertThat(byPosition).containsOnlyKeys("0", "1", "2");
              assertThat(byPosition.get("2")).isCloseTo(0.7, within(0.005));
            });
  }

  @Test
  void tokenRateRulesMatchTheScenarioOnceTheWindowIsFull(Fleet fleet) {
    PromApi api = fleet.api();
    // 4 req/s x 256 tokens = 1024 generation tokens/s, 4000 prompt tokens/s; one verification
    // step emits 3.1 tokens, so 330.3 drafts/s, 991 draft tokens/s, 693.7 accepted tokens/s.
    double drafts = 1024 / 3.1;
    await()
        .atMost(Duration.ofSeconds(150))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              assertThat(api.scalar("vllm:generation_tokens_per_second:rate1m" + STEADY))
                  .isCloseTo(1024, within(1024 * 0.03));
              assertThat(api.scalar("vllm:prompt_tokens_per_second:rate1m" + STEADY))
                  .isCloseTo(4000, within(4000 * 0.03));
              assertThat(api.scalar("vllm:total_tokens_per_second:rate1m" + STEADY))
                  .isCloseTo(5024, within(5024 * 0.03));
              assertThat(api.scalar("vllm:spec_decode_draft_tokens_per_second:rate1m" + STEADY))
                  .isCloseTo(drafts * 3, within(drafts * 3 * 0.03));
              assertThat(api.scalar("vllm:spec_decode_accepted_tokens_per_second:rate1m" + STEADY))
                  .isCloseTo(drafts * 2.1, within(drafts * 2.1 * 0.03));
            });
  }

  @Test
  void idleModelRecordsNoRatiosAndZeroTokenRates(Fleet fleet) {
    PromApi api = fleet.api();
    // While active (15 s of every 165 s) the acceptance rate is recorded: (0.8 + 0.6) / 2 = 0.7.
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () ->
                assertThat(
                        api.scalar(
                            "max_over_time(vllm:spec_decode_acceptance_rate:rate1m"
                                + IDLE
                                + "[10m])"))
                    .isCloseTo(0.7, within(0.01)));
    // A full minute after traffic stopped: no ratio sample, token rates exactly 0 (the idle
    // stretch comes round within one 165 s cycle).
    await()
        .atMost(Duration.ofSeconds(200))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              assertThat(api.query("vllm:spec_decode_acceptance_rate:rate1m" + IDLE)).isEmpty();
              assertThat(api.query("vllm:spec_decode_mean_accepted_length:rate1m" + IDLE))
                  .isEmpty();
              assertThat(api.query("vllm:spec_decode_acceptance_rate_by_pos:rate1m" + IDLE))
                  .isEmpty();
              assertThat(api.scalar("vllm:spec_decode_draft_tokens_per_second:rate1m" + IDLE))
                  .isEqualTo(0.0);
              assertThat(api.scalar("vllm:spec_decode_accepted_tokens_per_second:rate1m" + IDLE))
                  .isEqualTo(0.0);
            });
    // Never NaN and never above 100 % at any point in the run, for any model (NaN != NaN).
    assertThat(
            api.query(
                "vllm:spec_decode_acceptance_rate:rate1m != vllm:spec_decode_acceptance_rate:rate1m"))
        .isEmpty();
    assertThat(api.scalar("count(max_over_time(vllm:spec_decode_acceptance_rate:rate1m[10m]) > 1)"))
        .isNaN();
    assertThat(
            api.scalar(
                "count(count_over_time((vllm:spec_decode_acceptance_rate:rate1m"
                    + " != vllm:spec_decode_acceptance_rate:rate1m)[10m:1s]))"))
        .isNaN();
  }
}
