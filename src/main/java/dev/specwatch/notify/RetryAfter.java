package dev.specwatch.notify;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** The one parser of HTTP {@code Retry-After} (RFC 9110: delay-seconds or an HTTP-date). */
public final class RetryAfter {
  /** Honoured at most this long: a receiver must not park a notification for hours. */
  static final Duration MAX = Duration.ofMinutes(15);

  private RetryAfter() {}

  /** The delay the header asks for, capped at {@link #MAX}; empty when absent or unreadable. */
  public static Optional<Duration> parse(String header, Instant now) {
    if (header == null || header.isBlank()) {
      return Optional.empty();
    }
    String text = header.strip();
    Duration delay;
    try {
      delay = Duration.ofSeconds(Math.max(0, Long.parseLong(text)));
    } catch (NumberFormatException notSeconds) {
      try {
        Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        delay = at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
      } catch (DateTimeParseException notADate) {
        return Optional.empty();
      }
    }
    return Optional.of(delay.compareTo(MAX) > 0 ? MAX : delay);
  }
}
