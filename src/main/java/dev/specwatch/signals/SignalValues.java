package dev.specwatch.signals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

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
    Double draftOverhead) {

  public SignalValues {
    positionAcceptance = Collections.unmodifiableList(new ArrayList<>(positionAcceptance));
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

  public static SignalValues empty(int positions) {
    return new SignalValues(
        null, null, Collections.nCopies(positions, null), null, null, null, null, null, null);
  }
}
