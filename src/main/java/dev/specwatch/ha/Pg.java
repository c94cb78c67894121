package dev.specwatch.ha;

import java.time.Instant;

/** Small helpers for PostgreSQL values. */
final class Pg {
  /** PostgreSQL's timestamps span 4713 BC to 294276 AD; Instant.MIN/MAX are clamped into it. */
  private static final Instant LOW = Instant.parse("-4000-01-01T00:00:00Z");

  private static final Instant HIGH = Instant.parse("+200000-01-01T00:00:00Z");

  private Pg() {}

  static Instant clamp(Instant t) {
    return t.isBefore(LOW) ? LOW : t.isAfter(HIGH) ? HIGH : t;
  }
}
