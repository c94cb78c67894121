package dev.specwatch.signals;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * SGLang, as its own source exports it (docs/ENGINES.md has the files and commits):
 *
 * <ul>
 *   <li>tokenizer-side counters {@code sglang:generation_tokens_total} and, in newer releases,
 *       {@code sglang:spec_verify_calls_total}, labelled {@code model_name} (+ {@code engine_type},
 *       custom labels), one series per server: no rank labels;
 *   <li>scheduler-side gauges {@code sglang:spec_accept_length} (the last log interval's accepted
 *       length, bonus token included) and {@code sglang:num_running_reqs}, labelled {@code
 *       model_name, engine_type, tp_rank, pp_rank, moe_ep_rank} (+ {@code dp_rank} under DP
 *       attention), exported by each scheduler's attention-TP leader by default.
 * </ul>
 *
 * Where the verify counter exists the signals are exact over any window: accepted length L =
 * generation tokens / verify calls, acceptance (L − 1) / k with the policy's k, drafts = verify
 * calls. Where it does not (older releases), the accepted-length gauge is averaged over the window,
 * weighted by each scheduler's running requests, and the signals rest on it: approximate. The two
 * never mix for one recipe: the gauge form is dropped wherever the counter has a series ({@code
 * unless}). {@code spec_accept_rate} is not read: its definition changed between releases.
 */
public final class SglangProfile implements EngineProfile {
  public static final SglangProfile INSTANCE = new SglangProfile();

  public static final String ACCEPT_LENGTH = "sglang:spec_accept_length";
  public static final String VERIFY_CALLS = "sglang:spec_verify_calls_total";
  public static final String GENERATION_TOKENS = "sglang:generation_tokens_total";
  public static final String RUNNING_REQUESTS = "sglang:num_running_reqs";
  public static final String NUM_STEPS = "sglang:spec_num_steps";
  public static final String NUM_DRAFT_TOKENS = "sglang:spec_num_draft_tokens";

  /** The scheduler's parallelism labels: series that differ only in these are one scheduler. */
  static final String RANK_LABELS = "tp_rank, pp_rank, moe_ep_rank";

  private SglangProfile() {}

  @Override
  public String name() {
    return "sglang";
  }

  @Override
  public Optional<String> fullShapeSeries() {
    return Optional.of(VERIFY_CALLS);
  }

  @Override
  public SignalForm form(boolean fullShape) {
    String positions = "not exported by SGLang";
    if (fullShape) {
      return new SignalForm(false, positions, List.of());
    }
    return new SignalForm(
        true,
        positions,
        List.of(
            "approximate: this SGLang exports no spec_verify_calls_total, so the accepted length is"
                + " the schedulers' spec_accept_length gauge (their last log interval, weighted by"
                + " running requests), not the exact figure over the window"));
  }

  @Override
  public Optional<ActiveK> activeK() {
    // The active speculative_num_draft_tokens (metrics_collector.py @016d8605), less the bonus
    // token: SGLang's own acceptance divides by it.
    return Optional.of(ActiveK.gauge(NUM_DRAFT_TOKENS, -1, NUM_DRAFT_TOKENS + " - 1"));
  }

  @Override
  public Set<String> discoverySeries() {
    return Set.of(
        GENERATION_TOKENS,
        RUNNING_REQUESTS,
        VERIFY_CALLS,
        ACCEPT_LENGTH,
        NUM_STEPS,
        NUM_DRAFT_TOKENS);
  }

  @Override
  public Set<String> speculativeSeries() {
    return Set.of(VERIFY_CALLS, ACCEPT_LENGTH);
  }

  @Override
  public Map<String, String> discoveryFigures() {
    return Map.of(
        "steps",
        "max by (job, model_name) (max_over_time(" + NUM_STEPS + "[1h]))",
        // over the last hour: an adaptive server moves between values, of which the highest is
        // the policy's bound
        "draft_tokens",
        "max by (job, model_name) (max_over_time(" + NUM_DRAFT_TOKENS + "[1h]))",
        "draft_tokens_min",
        "min by (job, model_name) (min_over_time(" + NUM_DRAFT_TOKENS + "[1h]))",
        "schedulers",
        "count by (job, model_name) (group by (job, model_name, dp_rank) (" + ACCEPT_LENGTH + "))");
  }

  @Override
  public Discovered discovered(Discovered.Series s) {
    boolean verify = s.has(VERIFY_CALLS);
    boolean speculative = verify || s.has(ACCEPT_LENGTH);
    // SGLang's own acceptance divides by speculative_num_draft_tokens - 1 (metrics_reporter.py
    // @00df707e), which equals speculative_num_steps only with top-k 1 (a chain, not a tree).
    Optional<Integer> fromDraftTokens =
        s.figure("draft_tokens").filter(d -> d >= 2).map(d -> d.intValue() - 1);
    Optional<Integer> fromSteps = s.figure("steps").filter(d -> d >= 1).map(Double::intValue);
    Optional<Integer> k = fromDraftTokens.or(() -> fromSteps);
    Optional<Integer> lowest =
        s.figure("draft_tokens_min").filter(d -> d >= 2).map(d -> d.intValue() - 1);
    String adaptive =
        fromDraftTokens.isPresent() && lowest.isPresent() && !lowest.equals(fromDraftTokens)
            ? "; it moved between "
                + lowest.get()
                + " and "
                + fromDraftTokens.get()
                + " in the last hour (adaptive speculation): k is the highest, and check divides"
                + " by the k in force"
            : "";
    int schedulers = s.figure("schedulers").map(Double::intValue).orElse(1);
    List<String> missing = new ArrayList<>();
    missing.add("position_acceptance: not exported by SGLang");
    if (speculative && !verify) {
      missing.add("exact accepted length: no " + VERIFY_CALLS + ", the gauge is approximate");
    }
    return new Discovered(
        (verify ? "verify-calls" : "gauges-only (approximate)")
            + (schedulers > 1 ? ", DP attention (" + schedulers + " schedulers)" : ""),
        k,
        fromDraftTokens.isPresent()
            ? NUM_DRAFT_TOKENS
                + " - 1 (the active speculative_num_draft_tokens, less the bonus"
                + " token: SGLang's own acceptance divides by it)"
                + adaptive
            : fromSteps.isPresent()
                ? NUM_STEPS
                    + " (the active speculative_num_steps: speculative_num_draft_tokens - 1 only"
                    + " with speculative_eagle_topk 1)"
                : "not exported by this SGLang: set num_speculative_tokens to its"
                    + " --speculative-num-draft-tokens minus 1 (its --speculative-num-steps with"
                    + " --speculative-eagle-topk 1)",
        speculative,
        false,
        s.has(RUNNING_REQUESTS),
        missing);
  }

  @Override
  public List<RecordingRules.Group> recordingRules() {
    // SGLang's metric names are its own, so no job is selected; by model_name as for vLLM. Its
    // acceptance (L - 1) / k where its servers export the active speculative_num_draft_tokens
    // (newer releases; older ones record no sample: the policy's k is the daemon's, not a rule's).
    QueryScope anyJob = new QueryScope(List.of("model_name"), List.of(), RecordingRules.WINDOW);
    List<RecordingRules.Rule> rules =
        RecordingRules.concat(
            RecordingRules.standard("sglang:", this, anyJob, Signal.MEAN_ACCEPTED_LENGTH),
            List.of(
                new RecordingRules.Rule(
                    "sglang:spec_decode_acceptance_rate:rate1m", acceptanceFromServersK(anyJob)),
                new RecordingRules.Rule(
                    "sglang:spec_decode_verify_calls_per_second:rate1m",
                    VllmProfile.sumRate(VERIFY_CALLS, anyJob))),
            RecordingRules.standard(
                "sglang:",
                this,
                anyJob,
                Signal.ACCEPTED_TOKENS_PER_SECOND,
                Signal.GENERATION_TOKENS_PER_SECOND),
            List.of(
                new RecordingRules.Rule(
                    "sglang:num_running_reqs:avg1m", query(Signal.RUNNING_REQUESTS, anyJob))));
    return List.of(
        new RecordingRules.Group(
            "sglang-spec-decode",
            "SGLang (docs/ENGINES.md): its own metric names, any job.",
            rules));
  }

  @Override
  public boolean needsK() {
    return true;
  }

  @Override
  public boolean acceptanceFromK() {
    return true;
  }

  @Override
  public Set<Signal> supported() {
    return EnumSet.of(
        Signal.ACCEPTANCE_RATE,
        Signal.MEAN_ACCEPTED_LENGTH,
        Signal.DRAFT_TOKENS_PER_SECOND,
        Signal.ACCEPTED_TOKENS_PER_SECOND,
        Signal.GENERATION_TOKENS_PER_SECOND,
        Signal.DRAFTS_IN_WINDOW,
        Signal.RUNNING_REQUESTS);
  }

  @Override
  public String query(Signal signal, QueryScope scope) {
    // Every form with "or" is parenthesised: callers compare or combine a query as one term.
    return switch (signal) {
      case MEAN_ACCEPTED_LENGTH -> "(" + length(scope) + ")";
      case ACCEPTANCE_RATE ->
          "((" + length(scope) + ") - 1) / on (" + by(scope) + ") " + k(scope, signal);
      case DRAFT_TOKENS_PER_SECOND ->
          "("
              + sum(scope, "rate", VERIFY_CALLS)
              + "\n  or\n"
              + sum(scope, "rate", GENERATION_TOKENS)
              + " / on ("
              + by(scope)
              + ") ("
              + gaugeLength(scope)
              + ")) * on ("
              + by(scope)
              + ") "
              + k(scope, signal);
      case ACCEPTED_TOKENS_PER_SECOND ->
          "(("
              + sum(scope, "rate", GENERATION_TOKENS)
              + " - "
              + sum(scope, "rate", VERIFY_CALLS)
              + ")\n  or\n"
              + sum(scope, "rate", GENERATION_TOKENS)
              + " * on ("
              + by(scope)
              + ") (1 - 1 / ("
              + gaugeLength(scope)
              + ")))";
      case GENERATION_TOKENS_PER_SECOND -> sum(scope, "rate", GENERATION_TOKENS);
      case DRAFTS_IN_WINDOW ->
          // Without the verify counter: generation tokens / the accepted length, weighted by
          // running requests as everywhere else; while idle (no running requests, so no weighted
          // length) the count is the window's zero increase.
          "("
              + sum(scope, "increase", VERIFY_CALLS)
              + "\n  or\n("
              + sum(scope, "increase", GENERATION_TOKENS)
              + " / on ("
              + by(scope)
              + ") ("
              + gaugeLength(scope)
              + "))\n  or\n("
              + sum(scope, "increase", GENERATION_TOKENS)
              + " == 0))";
      case RUNNING_REQUESTS ->
          "sum by ("
              + by(scope)
              + ") (max without ("
              + RANK_LABELS
              + ") (avg_over_time("
              + RUNNING_REQUESTS
              + PromQl.selector(scope.matchers())
              + scope.rangeSelector()
              + ")))";
      default -> throw new IllegalArgumentException("sglang does not export " + signal.key());
    };
  }

  /** Exact where the verify counter exists, else the gauge: never both for one group. */
  private static String length(QueryScope scope) {
    return VllmProfile.ratio(
            sum(scope, "rate", GENERATION_TOKENS), sum(scope, "rate", VERIFY_CALLS))
        + "\n  or\n("
        + gaugeLength(scope)
        + ")";
  }

  /**
   * The accepted-length gauge over the window, weighted by each scheduler's running requests (a
   * busy DP rank counts for more than an idle one); only where no verify counter exists.
   */
  private static String gaugeLength(QueryScope scope) {
    String selector = PromQl.selector(scope.matchers()) + scope.rangeSelector();
    String running = "avg_over_time(" + RUNNING_REQUESTS + selector + ")";
    return "sum by ("
        + by(scope)
        + ") (avg_over_time("
        + ACCEPT_LENGTH
        + selector
        + ") * "
        + running
        + ")\n  /\n(sum by ("
        + by(scope)
        + ") ("
        + running
        + ") > 0)"
        + noVerifyCounter(scope);
  }

  /** Drops groups whose servers export the verify counter (the exact form answers for them). */
  private static String noVerifyCounter(QueryScope scope) {
    return PromQl.unlessExported(scope, VERIFY_CALLS);
  }

  private static String sum(QueryScope scope, String function, String metric) {
    return VllmProfile.sum(scope.groupBy(), function, metric, scope);
  }

  private static String by(QueryScope scope) {
    return PromQl.labelList(scope.groupBy());
  }

  /**
   * k as the servers run it: the active {@code speculative_num_draft_tokens} less the bonus token,
   * averaged over the window (SGLang may pick it at run time), where the gauge is exported; the
   * policy's k for the groups whose servers do not export it (older releases). Parenthesised, by
   * the scope's labels.
   */
  static String k(QueryScope scope, Signal signal) {
    int policyK = scope.requireK("sglang", signal);
    return "("
        + serversK(scope)
        + "\n  or\n"
        + sum(scope, "rate", GENERATION_TOKENS)
        + " * 0 + "
        + policyK
        + ")";
  }

  /**
   * The servers' k alone, averaged over the window: no sample for a group whose servers do not
   * export the active gauge.
   */
  static String serversK(QueryScope scope) {
    return "("
        + PromQl.aggregate("max", scope.groupBy(), "avg_over_time", NUM_DRAFT_TOKENS, scope)
        + " - 1) > 0";
  }

  /**
   * SGLang's own acceptance where the servers say their k (the active gauge): the recording rule's
   * form, which has no policy to fall back on. No sample for older releases.
   */
  static String acceptanceFromServersK(QueryScope scope) {
    return "((" + length(scope) + ") - 1) / on (" + by(scope) + ") (" + serversK(scope) + ")";
  }
}
