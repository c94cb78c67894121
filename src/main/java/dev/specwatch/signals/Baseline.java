package dev.specwatch.signals;

import java.time.Duration;

/**
 * The recipe's own history: its signals over {@code window} ending where the current evaluation
 * window starts. Null components: no value (no traffic, not queried).
 */
public record Baseline(
    Duration window,
    Double acceptanceRate,
    Double drafts,
    Double generationTokensPerSecond,
    Double runningRequests) {}
