package dev.specwatch.signals;

import dev.specwatch.model.LabelMatcher;
import java.time.Duration;
import java.util.List;

/**
 * Renders rules/vllm-spec-decode.rules.yaml from the engine profiles ({@link VllmProfile}, {@link
 * SglangProfile}, {@link TrtllmProfile}, {@link LlamacppProfile}): the recording rules users load
 * into Prometheus and the daemon's queries come from the same code. A test fails when the committed
 * file differs from {@link #render()}.
 */
public final class RecordingRules {
  /** The job whose targets the shipped rules read, as in deploy/prometheus/prometheus.yml. */
  public static final String JOB = "vllm";

  public static final Duration WINDOW = Duration.ofMinutes(1);
  public static final Duration INTERVAL = Duration.ofSeconds(5);

  private RecordingRules() {}

  private record Rule(String record, String expr) {}

  public static String render() {
    QueryScope byModel =
        new QueryScope(List.of("model_name"), List.of(LabelMatcher.equal("job", JOB)), WINDOW);
    VllmProfile vllm = VllmProfile.INSTANCE;
    List<Rule> throughput =
        List.of(
            new Rule(
                "vllm:generation_tokens_per_second:rate1m",
                vllm.query(Signal.GENERATION_TOKENS_PER_SECOND, byModel)),
            new Rule(
                "vllm:prompt_tokens_per_second:rate1m",
                VllmProfile.sumRate(VllmProfile.PROMPT_TOKENS, byModel)),
            new Rule(
                "vllm:total_tokens_per_second:rate1m",
                VllmProfile.sumRate(VllmProfile.GENERATION_TOKENS, byModel)
                    + "\n  +\n"
                    + VllmProfile.sumRate(VllmProfile.PROMPT_TOKENS, byModel)),
            new Rule(
                "vllm:num_requests_running:avg1m", vllm.query(Signal.RUNNING_REQUESTS, byModel)),
            // Per-request decode speed (docs/SPEEDUP.md): no sample while nothing runs.
            new Rule(
                "vllm:generation_tokens_per_second_per_request:rate1m",
                vllm.query(Signal.GENERATION_TOKENS_PER_SECOND, byModel)
                    + "\n  /\n("
                    + vllm.query(Signal.RUNNING_REQUESTS, byModel)
                    + " > 0)"));
    List<Rule> specDecode =
        List.of(
            new Rule(
                "vllm:spec_decode_acceptance_rate:rate1m",
                vllm.query(Signal.ACCEPTANCE_RATE, byModel)),
            new Rule(
                "vllm:spec_decode_mean_accepted_length:rate1m",
                vllm.query(Signal.MEAN_ACCEPTED_LENGTH, byModel)),
            new Rule(
                "vllm:spec_decode_draft_tokens_per_second:rate1m",
                vllm.query(Signal.DRAFT_TOKENS_PER_SECOND, byModel)),
            new Rule(
                "vllm:spec_decode_accepted_tokens_per_second:rate1m",
                vllm.query(Signal.ACCEPTED_TOKENS_PER_SECOND, byModel)),
            new Rule(
                "vllm:spec_decode_acceptance_rate_by_pos:rate1m",
                vllm.query(Signal.POSITION_ACCEPTANCE, byModel)));

    // SGLang and TensorRT-LLM: their metric names are their own, so no job is selected; by
    // model_name as for vLLM. Only what a rule can know k for: SGLang's acceptance (L - 1) / k
    // where its servers export the active speculative_num_draft_tokens (newer releases; older
    // ones record no sample), not TensorRT-LLM's length 1 + k x acceptance (the policy's k: the
    // daemon has it, a rule does not).
    QueryScope anyJob = new QueryScope(List.of("model_name"), List.of(), WINDOW);
    SglangProfile sglang = SglangProfile.INSTANCE;
    List<Rule> sglangRules =
        List.of(
            new Rule(
                "sglang:spec_decode_mean_accepted_length:rate1m",
                sglang.query(Signal.MEAN_ACCEPTED_LENGTH, anyJob)),
            new Rule(
                "sglang:spec_decode_acceptance_rate:rate1m",
                SglangProfile.acceptanceFromServersK(anyJob)),
            new Rule(
                "sglang:spec_decode_verify_calls_per_second:rate1m",
                VllmProfile.sumRate(SglangProfile.VERIFY_CALLS, anyJob)),
            new Rule(
                "sglang:spec_decode_accepted_tokens_per_second:rate1m",
                sglang.query(Signal.ACCEPTED_TOKENS_PER_SECOND, anyJob)),
            new Rule(
                "sglang:generation_tokens_per_second:rate1m",
                sglang.query(Signal.GENERATION_TOKENS_PER_SECOND, anyJob)),
            new Rule(
                "sglang:num_running_reqs:avg1m", sglang.query(Signal.RUNNING_REQUESTS, anyJob)));
    // trtllm-serve labels every series model_name="undefined" (docs/ENGINES.md): by job as well,
    // or two servers would be summed into one.
    QueryScope trtJobs = new QueryScope(List.of("job", "model_name"), List.of(), WINDOW);
    TrtllmProfile trtllm = TrtllmProfile.INSTANCE;
    List<Rule> trtllmRules =
        List.of(
            new Rule(
                "trtllm:spec_decode_acceptance_rate:rate1m",
                trtllm.query(Signal.ACCEPTANCE_RATE, trtJobs)),
            new Rule(
                "trtllm:spec_decode_acceptance_length:avg1m",
                "avg by (job, model_name) (avg_over_time(trtllm_spec_decode_acceptance_length"
                    + trtJobs.rangeSelector()
                    + "))"),
            new Rule(
                "trtllm:spec_decode_acceptance_rate_by_pos:rate1m",
                trtllm.query(Signal.POSITION_ACCEPTANCE, trtJobs)),
            new Rule(
                "trtllm:spec_decode_draft_tokens_per_second:rate1m",
                trtllm.query(Signal.DRAFT_TOKENS_PER_SECOND, trtJobs)),
            new Rule(
                "trtllm:spec_decode_accepted_tokens_per_second:rate1m",
                trtllm.query(Signal.ACCEPTED_TOKENS_PER_SECOND, trtJobs)),
            new Rule(
                "trtllm:generation_tokens_per_second:rate1m",
                trtllm.query(Signal.GENERATION_TOKENS_PER_SECOND, trtJobs)),
            new Rule(
                "trtllm:spec_decode_draft_overhead:avg1m",
                trtllm.query(Signal.DRAFT_OVERHEAD, trtJobs)));

    // llama.cpp labels nothing (one server, one model): by job. Its counters are vLLM's schema, so
    // everything is exact without k (docs/ENGINES.md).
    QueryScope byJob = new QueryScope(List.of("job"), List.of(), WINDOW);
    LlamacppProfile llamacpp = LlamacppProfile.INSTANCE;
    List<Rule> llamacppRules =
        List.of(
            new Rule(
                "llamacpp:spec_decode_acceptance_rate:rate1m",
                llamacpp.query(Signal.ACCEPTANCE_RATE, byJob)),
            new Rule(
                "llamacpp:spec_decode_mean_accepted_length:rate1m",
                llamacpp.query(Signal.MEAN_ACCEPTED_LENGTH, byJob)),
            new Rule(
                "llamacpp:spec_decode_acceptance_rate_by_pos:rate1m",
                llamacpp.query(Signal.POSITION_ACCEPTANCE, byJob)),
            new Rule(
                "llamacpp:spec_decode_draft_tokens_per_second:rate1m",
                llamacpp.query(Signal.DRAFT_TOKENS_PER_SECOND, byJob)),
            new Rule(
                "llamacpp:spec_decode_accepted_tokens_per_second:rate1m",
                llamacpp.query(Signal.ACCEPTED_TOKENS_PER_SECOND, byJob)),
            new Rule(
                "llamacpp:generation_tokens_per_second:rate1m",
                llamacpp.query(Signal.GENERATION_TOKENS_PER_SECOND, byJob)),
            new Rule(
                "llamacpp:requests_processing:avg1m",
                llamacpp.query(Signal.RUNNING_REQUESTS, byJob)));

    StringBuilder out = new StringBuilder();
    out.append(
            "# Prometheus recording rules for speculative decoding (MTP, EAGLE, draft models):\n")
        .append("# vLLM (throughput too), SGLang, TensorRT-LLM and llama.cpp.\n")
        .append("# Generated by `specwatch rules render` from the engine profiles\n")
        .append("# (src/main/java/dev/specwatch/signals/*Profile.java): change a profile,\n")
        .append("# then `make rules`. docs/METRICS.md explains every rule, docs/ENGINES.md the\n")
        .append("# engines' metrics.\n")
        .append("#\n")
        .append("# Counters are summed across data-parallel engines and instances by model_name\n")
        .append(
            "# before dividing. Ratio rules record no sample while a model is idle (no drafts\n")
        .append("# in the last minute); token-rate rules record 0.\n")
        .append("groups:\n");
    group(out, "vllm-throughput", throughput);
    group(out, "vllm-spec-decode", specDecode);
    out.append("  # SGLang and TensorRT-LLM (docs/ENGINES.md): their own metric names, any job.\n");
    group(out, "sglang-spec-decode", sglangRules);
    group(out, "trtllm-spec-decode", trtllmRules);
    out.append("  # llama.cpp's llama-server --metrics: no labels, so by job.\n");
    group(out, "llamacpp-spec-decode", llamacppRules);
    return out.toString();
  }

  private static void group(StringBuilder out, String name, List<Rule> rules) {
    out.append("  - name: ").append(name).append('\n');
    out.append("    interval: ").append(PromQl.range(INTERVAL)).append('\n');
    out.append("    rules:\n");
    for (Rule rule : rules) {
      out.append("      - record: ").append(rule.record()).append('\n');
      out.append("        expr: |-\n");
      for (String line : rule.expr().split("\n", -1)) {
        out.append("          ").append(line).append('\n');
      }
    }
  }
}
