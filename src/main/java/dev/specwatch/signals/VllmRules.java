package dev.specwatch.signals;

import dev.specwatch.model.LabelMatcher;
import java.util.List;

/** vLLM's groups of the recording rules, and those of vLLM behind Ray Serve LLM. */
final class VllmRules {
  private VllmRules() {}

  /** vLLM's throughput and speculative-decoding groups, on the job the shipped config scrapes. */
  static List<RecordingRules.Group> vllm() {
    QueryScope byModel =
        new QueryScope(
            List.of("model_name"),
            List.of(LabelMatcher.equal("job", RecordingRules.JOB)),
            RecordingRules.WINDOW);
    VllmProfile vllm = VllmProfile.INSTANCE;
    List<RecordingRules.Rule> throughput =
        List.of(
            new RecordingRules.Rule(
                "vllm:generation_tokens_per_second:rate1m",
                vllm.query(Signal.GENERATION_TOKENS_PER_SECOND, byModel)),
            new RecordingRules.Rule(
                "vllm:prompt_tokens_per_second:rate1m",
                VllmProfile.sumRate(VllmProfile.PROMPT_TOKENS, byModel)),
            new RecordingRules.Rule(
                "vllm:total_tokens_per_second:rate1m",
                VllmProfile.sumRate(VllmProfile.GENERATION_TOKENS, byModel)
                    + "\n  +\n"
                    + VllmProfile.sumRate(VllmProfile.PROMPT_TOKENS, byModel)),
            new RecordingRules.Rule(
                "vllm:num_requests_running:avg1m", vllm.query(Signal.RUNNING_REQUESTS, byModel)),
            // Per-request decode speed (docs/SPEEDUP.md): no sample while nothing runs.
            new RecordingRules.Rule(
                "vllm:generation_tokens_per_second_per_request:rate1m",
                vllm.query(Signal.GENERATION_TOKENS_PER_SECOND, byModel)
                    + "\n  /\n("
                    + vllm.query(Signal.RUNNING_REQUESTS, byModel)
                    + " > 0)"));
    return List.of(
        new RecordingRules.Group("vllm-throughput", null, throughput),
        new RecordingRules.Group("vllm-spec-decode", null, specDecode(vllm, "vllm:", byModel)));
  }

  /**
   * vLLM behind Ray Serve LLM: the same speculative-decoding rules over Ray's {@code ray_vllm_}
   * names (their own, so any job), recorded as {@code ray_vllm:…}; Ray's replica and worker labels
   * summed away.
   */
  static List<RecordingRules.Group> rayServe() {
    QueryScope byModel = new QueryScope(List.of("model_name"), List.of(), RecordingRules.WINDOW);
    VllmProfile ray = VllmProfile.RAY_SERVE;
    List<RecordingRules.Rule> rules =
        RecordingRules.concat(
            specDecode(ray, "ray_vllm:", byModel),
            RecordingRules.standard(
                "ray_vllm:", ray, byModel, Signal.GENERATION_TOKENS_PER_SECOND));
    return List.of(
        new RecordingRules.Group(
            "ray-vllm-spec-decode",
            "vLLM behind Ray Serve LLM (docs/ENGINES.md): vLLM's metrics as ray_vllm_*, any job.",
            rules));
  }

  private static List<RecordingRules.Rule> specDecode(
      VllmProfile profile, String prefix, QueryScope byModel) {
    return RecordingRules.standard(
        prefix,
        profile,
        byModel,
        Signal.ACCEPTANCE_RATE,
        Signal.MEAN_ACCEPTED_LENGTH,
        Signal.DRAFT_TOKENS_PER_SECOND,
        Signal.ACCEPTED_TOKENS_PER_SECOND,
        Signal.POSITION_ACCEPTANCE);
  }
}
