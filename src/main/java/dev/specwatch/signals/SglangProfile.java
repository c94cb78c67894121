package dev.specwatch.signals;

import dev.specwatch.model.LabelMatcher;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * SGLang: per-step gauges {@code sglang:spec_accept_length} (incl. the bonus token) and {@code
 * sglang:spec_accept_rate}, and the counter {@code sglang:spec_verify_calls_total}. Gauges are read
 * with {@code avg_over_time} (a rate of a gauge means nothing) and combined across servers weighted
 * by their verification calls, so a busy server counts for more than an idle one. Tensor-parallel
 * ranks report identical series; only the leader ({@code tp_rank="0"}) is read. SGLang exports no
 * per-position or draft-token counters.
 */
public final class SglangProfile implements EngineProfile {
  public static final SglangProfile INSTANCE = new SglangProfile();

  public static final String ACCEPT_LENGTH = "sglang:spec_accept_length";
  public static final String ACCEPT_RATE = "sglang:spec_accept_rate";
  public static final String VERIFY_CALLS = "sglang:spec_verify_calls_total";
  public static final String GENERATION_TOKENS = "sglang:generation_tokens_total";
  public static final String RUNNING_REQUESTS = "sglang:num_running_reqs";

  private SglangProfile() {}

  @Override
  public String name() {
    return "sglang";
  }

  @Override
  public Set<Signal> supported() {
    return EnumSet.of(
        Signal.ACCEPTANCE_RATE,
        Signal.MEAN_ACCEPTED_LENGTH,
        Signal.ACCEPTED_TOKENS_PER_SECOND,
        Signal.GENERATION_TOKENS_PER_SECOND,
        Signal.DRAFTS_IN_WINDOW,
        Signal.RUNNING_REQUESTS);
  }

  @Override
  public String query(Signal signal, QueryScope scope) {
    QueryScope leader = leaderOnly(scope);
    String by = PromQl.labelList(leader.groupBy());
    String range = leader.rangeSelector();
    String selector = PromQl.selector(leader.matchers());
    String verifyRate = "rate(" + VERIFY_CALLS + selector + range + ")";
    return switch (signal) {
      case ACCEPTANCE_RATE -> weighted(ACCEPT_RATE, selector, range, verifyRate, by);
      case MEAN_ACCEPTED_LENGTH -> weighted(ACCEPT_LENGTH, selector, range, verifyRate, by);
      case ACCEPTED_TOKENS_PER_SECOND ->
          "sum by ("
              + by
              + ") ((avg_over_time("
              + ACCEPT_LENGTH
              + selector
              + range
              + ") - 1) * "
              + verifyRate
              + ")";
      case GENERATION_TOKENS_PER_SECOND -> VllmProfile.sumRate(GENERATION_TOKENS, leader);
      case DRAFTS_IN_WINDOW -> VllmProfile.sum(leader.groupBy(), "increase", VERIFY_CALLS, leader);
      case RUNNING_REQUESTS ->
          VllmProfile.sum(leader.groupBy(), "avg_over_time", RUNNING_REQUESTS, leader);
      default -> throw new IllegalArgumentException("sglang does not export " + signal.key());
    };
  }

  /** Verification-weighted mean of a per-server gauge; no sample when no verification ran. */
  private static String weighted(
      String gauge, String selector, String range, String verifyRate, String by) {
    return "sum by ("
        + by
        + ") (avg_over_time("
        + gauge
        + selector
        + range
        + ") * "
        + verifyRate
        + ")\n  /\n(sum by ("
        + by
        + ") ("
        + verifyRate
        + ") > 0)";
  }

  private static QueryScope leaderOnly(QueryScope scope) {
    List<LabelMatcher> matchers = new ArrayList<>(scope.matchers());
    if (matchers.stream().noneMatch(m -> m.name().equals("tp_rank"))) {
      matchers.add(LabelMatcher.equal("tp_rank", "0"));
    }
    return new QueryScope(scope.groupBy(), matchers, scope.window(), scope.offset());
  }
}
