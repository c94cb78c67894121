package dev.specwatch.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A scenario clock that stands still until released, then runs with the wall clock: a simulator on
 * it serves its timeline's first moment (counters at rest) until the test has done what must come
 * first, so "before the regression" is an order, not a race.
 */
public final class HeldClock extends Clock {
  private final Instant base = Instant.now();
  private volatile Instant releasedAt;

  public void release() {
    releasedAt = Instant.now();
  }

  /** When the timeline started running (the wall-clock time of release). */
  public Instant releasedAt() {
    return releasedAt;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    Instant r = releasedAt;
    return r == null ? base : base.plus(Duration.between(r, Instant.now()));
  }
}
