package dev.specwatch.sim;

import java.time.Duration;
import java.util.List;

/**
 * One stretch of simulated traffic for one model.
 *
 * @param duration how long the phase lasts; null only for the last phase of a non-repeating model,
 *     which then lasts forever
 * @param requestsPerSecond finished requests per second across all engines; 0 means idle
 * @param numSpeculativeTokens k in force during the phase
 * @param positionAcceptance for each draft position i &lt; k, the fraction of drafts whose token i
 *     was accepted; non-increasing, because vLLM accepts position i only after all earlier ones
 * @param restart counters restart from zero at the phase's start, as when vLLM restarts
 * @param runningRequests the {@code vllm:num_requests_running} gauge during the phase
 */
public record Phase(
    String name,
    Duration duration,
    double requestsPerSecond,
    int outputTokensPerRequest,
    int promptTokensPerRequest,
    int numSpeculativeTokens,
    List<Double> positionAcceptance,
    boolean restart,
    double runningRequests) {

  public Phase {
    if (duration != null && (duration.isNegative() || duration.isZero())) {
      throw new IllegalArgumentException("duration must be positive");
    }
    if (requestsPerSecond < 0 || numSpeculativeTokens < 0) {
      throw new IllegalArgumentException("rate must be >= 0 and k >= 0");
    }
    positionAcceptance = List.copyOf(positionAcceptance);
    if (requestsPerSecond > 0 && positionAcceptance.size() != numSpeculativeTokens) {
      throw new IllegalArgumentException("one acceptance per draft position is required");
    }
  }

  /** Default concurrency: each request decodes at about 40 tokens/s. */
  public static double defaultRunningRequests(double requestsPerSecond, int outputTokens) {
    return requestsPerSecond * outputTokens / 40.0;
  }

  /** Whether the deployment speculates in this phase (k = 0: a deployment without, a baseline). */
  public boolean speculative() {
    return numSpeculativeTokens > 0;
  }

  public boolean idle() {
    return requestsPerSecond == 0;
  }

  /** Expected tokens emitted per verification step: 1 (bonus token) + sum of a_i. */
  public double meanAcceptedLength() {
    return 1 + positionAcceptance.stream().mapToDouble(Double::doubleValue).sum();
  }
}
