package dev.specwatch.signals;

/** The efficiency signals of speculative decoding (docs/METRICS.md). */
public enum Signal {
  /** Accepted draft tokens / proposed draft tokens, 0..1. No sample when idle. */
  ACCEPTANCE_RATE("acceptance_rate"),
  /** 1 + accepted tokens / drafts: tokens per verification step incl. the bonus token, 1..k+1. */
  MEAN_ACCEPTED_LENGTH("mean_accepted_length"),
  /** Per draft position i: accepted at i / drafts, 0..1, non-increasing in i. */
  POSITION_ACCEPTANCE("position_acceptance"),
  /** Draft tokens proposed per second; 0 when idle. */
  DRAFT_TOKENS_PER_SECOND("draft_tokens_per_second"),
  /** Draft tokens accepted per second; 0 when idle. */
  ACCEPTED_TOKENS_PER_SECOND("accepted_tokens_per_second"),
  /** Output tokens per second, speculative or not; 0 when idle. */
  GENERATION_TOKENS_PER_SECOND("generation_tokens_per_second"),
  /** Verification steps (drafts) in the window: the traffic volume behind the ratios. */
  DRAFTS_IN_WINDOW("drafts_in_window"),
  /**
   * Requests being generated, averaged over the window; queried only for throughput rules, to
   * compare generation tokens/s per running request against the baseline.
   */
  RUNNING_REQUESTS("running_requests"),
  /**
   * TensorRT-LLM only: the share of iteration time spent drafting ({@code
   * trtllm_spec_decode_draft_overhead}, draft time / total time), averaged over the window and the
   * instances: what the drafts cost, for the measured speed-up.
   */
  DRAFT_OVERHEAD("draft_overhead"),
  /**
   * Over a baseline only: the standard deviation of the rate-window acceptance rate across it (a
   * subquery at window resolution), the regression rule's measure of natural variability.
   */
  ACCEPTANCE_SPREAD("acceptance_spread"),
  /** Draft tokens proposed in the last evaluation step (counter increase): the trials. */
  STEP_DRAFT_TOKENS("step_draft_tokens", true),
  /** Draft tokens accepted in the last evaluation step: the successes. */
  STEP_ACCEPTED_TOKENS("step_accepted_tokens", true),
  /** Verification steps (drafts) in the last evaluation step. */
  STEP_DRAFTS("step_drafts", true),
  /** Per draft position: tokens accepted there in the last evaluation step. */
  STEP_ACCEPTED_PER_POSITION("step_accepted_per_position", true);

  private final String key;
  private final boolean step;

  Signal(String key) {
    this(key, false);
  }

  Signal(String key, boolean step) {
    this.key = key;
    this.step = step;
  }

  /** The signals that are counter increases over one evaluation step, in declaration order. */
  public static final java.util.List<Signal> STEP_SIGNALS =
      java.util.Arrays.stream(values()).filter(Signal::step).toList();

  /** Whether this signal is a counter increase over one evaluation step, not the rate window. */
  public boolean step() {
    return step;
  }

  /** The name used in config, JSON output and docs. */
  public String key() {
    return key;
  }
}
