package dev.specwatch.signals;

import dev.specwatch.model.LabelMatcher;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * TensorRT-LLM's {@code trtllm-serve}, as {@code tensorrt_llm/metrics/collector.py} exports it
 * (docs/ENGINES.md): iteration-level counters {@code trtllm_spec_decode_num_draft_tokens_total} and
 * {@code trtllm_spec_decode_num_accepted_tokens_total} (with {@code enable_iter_perf_stats}),
 * per-request per-position counters {@code trtllm_spec_decode_drafted_tokens_total} and {@code
 * trtllm_spec_decode_accepted_tokens_total} labelled {@code token_position} (0-based, with {@code
 * return_perf_metrics}), the gauges {@code trtllm_spec_decode_acceptance_length} and {@code
 * trtllm_spec_decode_draft_overhead}, all labelled with the collector's labels ({@code model_name},
 * {@code engine_type}). There is no counter of verification steps: drafts are draft tokens / k and
 * the accepted length 1 + k × acceptance, with the policy's k.
 */
public final class TrtllmProfile implements EngineProfile {
  public static final TrtllmProfile INSTANCE = new TrtllmProfile();

  public static final String DRAFT_TOKENS = "trtllm_spec_decode_num_draft_tokens_total";
  public static final String ACCEPTED_TOKENS = "trtllm_spec_decode_num_accepted_tokens_total";
  public static final String DRAFT_OVERHEAD = "trtllm_spec_decode_draft_overhead";
  public static final String DRAFTED_PER_POSITION = "trtllm_spec_decode_drafted_tokens_total";
  public static final String ACCEPTED_PER_POSITION = "trtllm_spec_decode_accepted_tokens_total";
  public static final String GENERATION_TOKENS = "trtllm_generation_tokens_total";
  public static final String RUNNING_REQUESTS = "trtllm_num_requests_running";

  private TrtllmProfile() {}

  @Override
  public String name() {
    return "trtllm";
  }

  @Override
  public Optional<String> fullShapeSeries() {
    return Optional.of(DRAFTED_PER_POSITION);
  }

  @Override
  public Optional<ActiveK> activeK() {
    // Counted per finished request: a position appears once a request has drafted it.
    return Optional.of(ActiveK.positions(DRAFTED_PER_POSITION, "token_position", false));
  }

  @Override
  public SignalForm form(boolean fullShape) {
    return new SignalForm(
        false,
        fullShape
            ? SignalForm.EXPORTED
            : "not exported: trtllm-serve fills the per-position counters only with"
                + " return_perf_metrics",
        List.of());
  }

  @Override
  public Map<String, String> olderReleaseMarkers() {
    // tensorrt_llm/metrics/collector.py @89fd9b74: request_success_total and four latency
    // histograms, unprefixed; no token or speculative series.
    return Map.of(
        "request_success_total",
        "this trtllm-serve predates TensorRT-LLM's token and speculative-decoding metrics: it exports"
            + " request_success_total and latency histograms only, without the trtllm_ prefix"
            + " (tensorrt_llm/metrics/collector.py @89fd9b74); upgrade it to watch speculation");
  }

  @Override
  public Optional<Map.Entry<String, String>> placeholderModelName() {
    // MetricsCollector({"model_name": "undefined", "engine_type": "undefined"}) in
    // tensorrt_llm/serve/openai_server.py (@00057725, @e7f7345e)
    return Optional.of(
        Map.entry(
            "undefined",
            "trtllm-serve labels every series model_name=\"undefined\""
                + " (tensorrt_llm/serve/openai_server.py @00057725)"));
  }

  @Override
  public List<RecordingRules.Group> recordingRules() {
    // Not the accepted length 1 + k x acceptance: the policy's k is the daemon's, not a rule's.
    // trtllm-serve labels every series model_name="undefined" (docs/ENGINES.md): by job as well,
    // or two servers would be summed into one.
    QueryScope trtJobs =
        new QueryScope(List.of("job", "model_name"), List.of(), RecordingRules.WINDOW);
    List<RecordingRules.Rule> rules =
        RecordingRules.concat(
            RecordingRules.standard("trtllm:", this, trtJobs, Signal.ACCEPTANCE_RATE),
            List.of(
                new RecordingRules.Rule(
                    "trtllm:spec_decode_acceptance_length:avg1m",
                    PromQl.aggregate(
                        "avg",
                        trtJobs.groupBy(),
                        "avg_over_time",
                        "trtllm_spec_decode_acceptance_length",
                        trtJobs))),
            RecordingRules.standard(
                "trtllm:",
                this,
                trtJobs,
                Signal.POSITION_ACCEPTANCE,
                Signal.DRAFT_TOKENS_PER_SECOND,
                Signal.ACCEPTED_TOKENS_PER_SECOND,
                Signal.GENERATION_TOKENS_PER_SECOND),
            List.of(
                new RecordingRules.Rule(
                    "trtllm:spec_decode_draft_overhead:avg1m",
                    query(Signal.DRAFT_OVERHEAD, trtJobs))));
    return List.of(
        new RecordingRules.Group(
            "trtllm-spec-decode",
            "TensorRT-LLM (docs/ENGINES.md): its own metric names, by job and model_name.",
            rules));
  }

  @Override
  public Set<String> discoverySeries() {
    return Set.of(GENERATION_TOKENS, RUNNING_REQUESTS, DRAFT_TOKENS, DRAFTED_PER_POSITION);
  }

  @Override
  public Set<String> speculativeSeries() {
    return Set.of(DRAFT_TOKENS, DRAFTED_PER_POSITION);
  }

  @Override
  public Map<String, String> discoveryFigures() {
    return Map.of("k", Discovered.positionCount(DRAFTED_PER_POSITION, "token_position"));
  }

  @Override
  public Discovered discovered(Discovered.Series s) {
    boolean positions = s.has(DRAFTED_PER_POSITION);
    Optional<Integer> k = Discovered.k(s);
    List<String> missing = new ArrayList<>();
    if (s.has(DRAFT_TOKENS) && !positions) {
      missing.add("position_acceptance: trtllm-serve fills it only with return_perf_metrics");
    }
    if (positions && !s.has(DRAFT_TOKENS)) {
      missing.add(
          "iteration counters: trtllm-serve exports them only with enable_iter_perf_stats;"
              + " acceptance is read from the per-position counters, per finished request");
    }
    return new Discovered(
        positions
            ? (s.has(DRAFT_TOKENS) ? "per-position" : "per-position only (no iteration stats)")
            : "iteration stats only",
        k,
        k.isPresent()
            ? "token positions exported (" + DRAFTED_PER_POSITION + ")"
            : "not exported: set num_speculative_tokens to the max_draft_len of its"
                + " speculative_config",
        s.has(DRAFT_TOKENS) || positions,
        positions,
        s.has(RUNNING_REQUESTS),
        missing);
  }

  @Override
  public boolean needsK() {
    return true;
  }

  @Override
  public Set<Signal> supported() {
    return EnumSet.of(
        Signal.ACCEPTANCE_RATE,
        Signal.MEAN_ACCEPTED_LENGTH,
        Signal.POSITION_ACCEPTANCE,
        Signal.DRAFT_TOKENS_PER_SECOND,
        Signal.ACCEPTED_TOKENS_PER_SECOND,
        Signal.GENERATION_TOKENS_PER_SECOND,
        Signal.DRAFTS_IN_WINDOW,
        Signal.RUNNING_REQUESTS,
        Signal.DRAFT_OVERHEAD,
        Signal.STEP_DRAFT_TOKENS,
        Signal.STEP_ACCEPTED_TOKENS,
        Signal.STEP_DRAFTS);
  }

  @Override
  public String query(Signal signal, QueryScope scope) {
    return switch (signal) {
      case ACCEPTANCE_RATE -> acceptance(scope);
      case MEAN_ACCEPTED_LENGTH -> "(1 + " + k(scope, signal) + " * " + acceptance(scope) + ")";
      case POSITION_ACCEPTANCE -> positionAcceptance(scope);
      case DRAFT_TOKENS_PER_SECOND ->
          orPositions(
              scope,
              VllmProfile.sumRate(DRAFT_TOKENS, scope),
              VllmProfile.sumRate(DRAFTED_PER_POSITION, scope));
      case ACCEPTED_TOKENS_PER_SECOND ->
          orPositions(
              scope,
              VllmProfile.sumRate(ACCEPTED_TOKENS, scope),
              VllmProfile.sumRate(ACCEPTED_PER_POSITION, scope));
      case GENERATION_TOKENS_PER_SECOND -> VllmProfile.sumRate(GENERATION_TOKENS, scope);
      case DRAFTS_IN_WINDOW ->
          orPositions(
              scope,
              VllmProfile.sum(scope.groupBy(), "increase", DRAFT_TOKENS, scope)
                  + " / "
                  + k(scope, signal),
              draftedAtZero(scope, "increase"));
      case STEP_DRAFTS ->
          VllmProfile.sum(scope.groupBy(), "increase", DRAFT_TOKENS, scope)
              + " / "
              + k(scope, signal);
      case RUNNING_REQUESTS ->
          VllmProfile.sum(scope.groupBy(), "avg_over_time", RUNNING_REQUESTS, scope);
      case DRAFT_OVERHEAD ->
          PromQl.aggregate("avg", scope.groupBy(), "avg_over_time", DRAFT_OVERHEAD, scope);
      case STEP_DRAFT_TOKENS -> VllmProfile.sum(scope.groupBy(), "increase", DRAFT_TOKENS, scope);
      case STEP_ACCEPTED_TOKENS ->
          VllmProfile.sum(scope.groupBy(), "increase", ACCEPTED_TOKENS, scope);
      default -> throw new IllegalArgumentException("trtllm does not export " + signal.key());
    };
  }

  /**
   * From the iteration counters, or from the per-position ones for groups whose servers export no
   * iteration counter (trtllm-serve without {@code enable_iter_perf_stats} but with {@code
   * return_perf_metrics}): summed over positions they count the same draft and accepted tokens, per
   * finished request instead of per iteration. One source per group, never mixed.
   */
  private static String orPositions(QueryScope scope, String iteration, String positions) {
    return PromQl.orWhereNotExported(scope, iteration, positions, DRAFT_TOKENS);
  }

  /**
   * {@code sum by (G) (function(drafted{token_position="0"}[W]))}: the verification steps, every
   * one of which drafts position 0.
   */
  private static String draftedAtZero(QueryScope scope, String function) {
    return "sum by ("
        + PromQl.labelList(scope.groupBy())
        + ") ("
        + function
        + "("
        + DRAFTED_PER_POSITION
        + withPosition(scope, "0")
        + scope.rangeSelector()
        + "))";
  }

  private static String acceptance(QueryScope scope) {
    return orPositions(
        scope,
        VllmProfile.ratio(
            VllmProfile.sumRate(ACCEPTED_TOKENS, scope), VllmProfile.sumRate(DRAFT_TOKENS, scope)),
        VllmProfile.ratio(
            VllmProfile.sumRate(ACCEPTED_PER_POSITION, scope),
            VllmProfile.sumRate(DRAFTED_PER_POSITION, scope)));
  }

  /**
   * Accepted at position i / drafted at position 0 (every verification step drafts position 0):
   * vLLM's definition, with {@code token_position} renamed {@code position}.
   */
  private static String positionAcceptance(QueryScope scope) {
    List<String> byPosition = new ArrayList<>(scope.groupBy());
    byPosition.add("token_position");
    String by = PromQl.labelList(scope.groupBy());
    return "label_replace("
        + VllmProfile.sum(byPosition, "rate", ACCEPTED_PER_POSITION, scope)
        + ", \"position\", \"$1\", \"token_position\", \"(.*)\")"
        + "\n  / on ("
        + by
        + ") group_left ()\n("
        + draftedAtZero(scope, "rate")
        + " > 0)";
  }

  /** The scope's selector with {@code token_position="0"} added. */
  private static String withPosition(QueryScope scope, String position) {
    List<LabelMatcher> matchers = new ArrayList<>(scope.matchers());
    matchers.add(LabelMatcher.equal("token_position", position));
    return PromQl.selector(matchers);
  }

  private static int k(QueryScope scope, Signal signal) {
    return scope.requireK("trtllm", signal);
  }
}
