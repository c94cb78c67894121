package dev.specwatch.signals;

import dev.specwatch.advisor.Advisor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The measured signals of one recipe over one window. A null component means "no value": idle
 * (0/0), not exported by the engine, or not queried. Never NaN.
 *
 * @param positionAcceptance one entry per draft position 0..k-1, null entries where absent
 * @param runningRequests queried only for recipes with a throughput rule
 */
public record SignalValues(
    Double acceptanceRate,
    Double meanAcceptedLength,
    List<Double> positionAcceptance,
    Double draftTokensPerSecond,
    Double acceptedTokensPerSecond,
    Double generationTokensPerSecond,
    Double draftsInWindow,
    Double runningRequests,
    Double draftOverhead,
    Double speedup) {

  public SignalValues {
    positionAcceptance = Collections.unmodifiableList(new ArrayList<>(positionAcceptance));
  }

  /** Without a measured speed-up (recipes without a speed-up threshold). */
  public SignalValues(
      Double acceptanceRate,
      Double meanAcceptedLength,
      List<Double> positionAcceptance,
      Double draftTokensPerSecond,
      Double acceptedTokensPerSecond,
      Double generationTokensPerSecond,
      Double draftsInWindow,
      Double runningRequests,
      Double draftOverhead) {
    this(
        acceptanceRate,
        meanAcceptedLength,
        positionAcceptance,
        draftTokensPerSecond,
        acceptedTokensPerSecond,
        generationTokensPerSecond,
        draftsInWindow,
        runningRequests,
        draftOverhead,
        null);
  }

  /** Without a draft overhead (every engine but TensorRT-LLM). */
  public SignalValues(
      Double acceptanceRate,
      Double meanAcceptedLength,
      List<Double> positionAcceptance,
      Double draftTokensPerSecond,
      Double acceptedTokensPerSecond,
      Double generationTokensPerSecond,
      Double draftsInWindow,
      Double runningRequests) {
    this(
        acceptanceRate,
        meanAcceptedLength,
        positionAcceptance,
        draftTokensPerSecond,
        acceptedTokensPerSecond,
        generationTokensPerSecond,
        draftsInWindow,
        runningRequests,
        null);
  }

  /**
   * The acceptance of each position given the one before was accepted: a_0, a_1 / a_0, a_2 / a_1, …
   * (vLLM accepts position i only after every earlier one, so a_i / a_{i-1} is that conditional
   * probability); null where the earlier position was never accepted or is unknown.
   */
  public List<Double> conditionalAcceptance() {
    List<Double> out = new ArrayList<>(positionAcceptance.size());
    for (int i = 0; i < positionAcceptance.size(); i++) {
      Double a = positionAcceptance.get(i);
      Double before = i == 0 ? Double.valueOf(1) : positionAcceptance.get(i - 1);
      out.add(a == null || before == null || before <= 0 ? null : Math.min(1, a / before));
    }
    return Collections.unmodifiableList(out);
  }

  /** Draft tokens the target model verified and rejected, per second: wasted draft work. */
  public Double rejectedDraftTokensPerSecond() {
    if (draftTokensPerSecond == null || acceptedTokensPerSecond == null) {
      return null;
    }
    return Math.max(0, draftTokensPerSecond - acceptedTokensPerSecond);
  }

  /** The share of generated tokens that were accepted drafts (the rest: one token a step). */
  public Double outputShareFromDrafts() {
    if (acceptedTokensPerSecond == null
        || generationTokensPerSecond == null
        || generationTokensPerSecond <= 0) {
      return null;
    }
    return Math.max(0, Math.min(1, acceptedTokensPerSecond / generationTokensPerSecond));
  }

  /** Whether these are the signals of a deployment without speculation (k = 0: no positions). */
  public boolean plain() {
    return positionAcceptance.isEmpty();
  }

  /** Generation tokens/s per running request: each request's decode speed; null when idle. */
  public Double tokensPerSecondPerRequest() {
    if (generationTokensPerSecond == null || runningRequests == null || runningRequests <= 0) {
      return null;
    }
    return generationTokensPerSecond / runningRequests;
  }

  /** The advisor on these signals at its default draft cost, when every position was measured. */
  public Optional<Advisor.Advice> advice() {
    if (positionAcceptance.isEmpty() || positionAcceptance.stream().anyMatch(v -> v == null)) {
      return Optional.empty();
    }
    return Optional.of(
        Advisor.advise(
            positionAcceptance,
            positionAcceptance.size(),
            Advisor.DEFAULT_DRAFT_COST,
            draftsInWindow == null ? 0 : draftsInWindow));
  }

  public static SignalValues empty(int positions) {
    return new SignalValues(
        null, null, Collections.nCopies(positions, null), null, null, null, null, null, null, null);
  }
}
