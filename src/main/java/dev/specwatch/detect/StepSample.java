package dev.specwatch.detect;

import java.time.Instant;

/**
 * One sample of history: {@code successes} of {@code trials} (accepted of drafted tokens) in the
 * evaluation step ending at {@code at}, and in the block of m steps ending there (NaN when
 * unknown).
 */
public record StepSample(
    Instant at, double successes, double trials, double blockSuccesses, double blockTrials) {
  public double proportion() {
    return successes / trials;
  }
}
