package dev.specwatch.signals;

import java.time.Duration;

/**
 * The recipe's own history: its signals over {@code window} ending where the current evaluation
 * window starts. Null components: no value (no traffic, not queried).
 *
 * @param acceptanceSpread the standard deviation of the rate-window acceptance across the baseline:
 *     how much it moves on its own (binomial noise plus the prompt mix)
 */
public record Baseline(
    Duration window,
    Double acceptanceRate,
    Double drafts,
    Double generationTokensPerSecond,
    Double runningRequests,
    Double acceptanceSpread) {
  public Baseline(
      Duration window,
      Double acceptanceRate,
      Double drafts,
      Double generationTokensPerSecond,
      Double runningRequests) {
    this(window, acceptanceRate, drafts, generationTokensPerSecond, runningRequests, null);
  }
}
