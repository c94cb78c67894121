package dev.specwatch.schedule;

import dev.specwatch.model.Durations;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Whether evaluations are still happening: the daemon's liveness ({@code /healthz}, the container
 * HEALTHCHECK, Kubernetes' liveness probe) and what feeds systemd's watchdog. Measured on the
 * monotonic clock, so a wall clock that steps (NTP, a resumed VM) neither hides nor fakes a stall.
 *
 * <p>Stalled means: no evaluation running and none started for {@code 3 × interval + 60 s} (a
 * scheduler that stopped firing), or one running for longer than {@link #MAX_EVALUATION} (a hung
 * evaluation: against a datasource that accepts and never answers, every query times out and is
 * retried, about 7 minutes at the defaults). A datasource that fails does not stall anything:
 * evaluations still finish (with errors), which is readiness' business, not liveness'. In a cluster
 * a replica may rightly evaluate nothing (the others run the shards), so only a hung evaluation
 * counts there.
 */
final class Liveness {
  /** The longest an evaluation may run before the process counts as stuck. */
  static final Duration MAX_EVALUATION = Duration.ofMinutes(15);

  /** Added to three intervals before a missing evaluation counts as a stall. */
  static final Duration SLACK = Duration.ofSeconds(60);

  private final LongSupplier nanos;
  private final boolean mustEvaluate;
  private final long born;
  private final Map<Integer, Long> running = new ConcurrentHashMap<>();
  private volatile long lastActivity;
  private volatile Duration interval;

  /**
   * @param nanos the monotonic clock ({@code System::nanoTime})
   * @param mustEvaluate whether this process runs every evaluation itself (no cluster)
   */
  Liveness(LongSupplier nanos, Duration interval, boolean mustEvaluate) {
    this.nanos = nanos;
    this.interval = interval;
    this.mustEvaluate = mustEvaluate;
    this.born = nanos.getAsLong();
    this.lastActivity = born;
  }

  /** The evaluation interval changed (reload). */
  void interval(Duration next) {
    interval = next;
  }

  void started(int shard) {
    long now = nanos.getAsLong();
    running.put(shard, now);
    lastActivity = now;
  }

  void finished(int shard) {
    running.remove(shard);
    lastActivity = nanos.getAsLong();
  }

  /** How long without an evaluation counts as a stall at the current interval. */
  Duration stallAfter() {
    return interval.multipliedBy(3).plus(SLACK);
  }

  /** Why the process counts as stuck, or empty while evaluations happen. */
  Optional<String> stalled() {
    long now = nanos.getAsLong();
    Optional<Duration> longest = longestRunning(now);
    if (longest.isPresent() && longest.get().compareTo(MAX_EVALUATION) > 0) {
      return Optional.of(
          "an evaluation has been running for "
              + Durations.format(truncate(longest.get()))
              + " (more than "
              + Durations.format(MAX_EVALUATION)
              + ")");
    }
    if (!mustEvaluate || !running.isEmpty()) {
      return Optional.empty();
    }
    Duration quiet = Duration.ofNanos(now - lastActivity);
    if (quiet.compareTo(stallAfter()) <= 0) {
      return Optional.empty();
    }
    return Optional.of(
        (lastActivity == born ? "no evaluation has started " : "no evaluation for the last ")
            + Durations.format(truncate(quiet))
            + (lastActivity == born ? " after specwatch started" : "")
            + " (evaluation.interval "
            + Durations.format(interval)
            + ")");
  }

  /**
   * Where the process stands while it has no evaluation to show (for {@code /readyz} and the status
   * API): the first evaluation under way and for how long (a slow datasource, every query retried),
   * or none started and how long since start (a scheduler that has not fired).
   */
  String beforeFirstEvaluation() {
    long now = nanos.getAsLong();
    Optional<Duration> longest = longestRunning(now);
    if (longest.isPresent()) {
      return "the first has been running for " + Durations.format(truncate(longest.get()));
    }
    return "none has started in the "
        + Durations.format(truncate(Duration.ofNanos(now - born)))
        + " since specwatch started";
  }

  /** How long the evaluation under way longest has been running at {@code now}; empty if none. */
  private Optional<Duration> longestRunning(long now) {
    return running.values().stream()
        .map(since -> Duration.ofNanos(now - since))
        .max(Duration::compareTo);
  }

  private static Duration truncate(Duration d) {
    return Duration.ofSeconds(d.toSeconds());
  }
}
