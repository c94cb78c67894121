package dev.specwatch.model;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations in Prometheus' notation: one or more of {@code <n>w|d|h|m|s|ms} in that order, e.g.
 * {@code 30s}, {@code 5m}, {@code 1h30m}, {@code 7d}.
 */
public final class Durations {
  private static final Pattern FORMAT =
      Pattern.compile("(?:(\\d+)w)?(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?(?:(\\d+)ms)?");

  private Durations() {}

  public static Optional<Duration> parse(String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    Matcher m = FORMAT.matcher(text.trim());
    if (!m.matches() || m.group(0).isEmpty()) {
      return Optional.empty();
    }
    long[] unitsMillis = {604_800_000L, 86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
    long millis = 0;
    try {
      for (int i = 0; i < unitsMillis.length; i++) {
        String group = m.group(i + 1);
        if (group != null) {
          millis = Math.addExact(millis, Math.multiplyExact(Long.parseLong(group), unitsMillis[i]));
        }
      }
    } catch (ArithmeticException | NumberFormatException e) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofMillis(millis));
  }

  /** Formats as Prometheus would read it: {@code 5m}, {@code 1h30m}, {@code 1500ms}. */
  public static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis == 0) {
      return "0s";
    }
    StringBuilder out = new StringBuilder();
    long[] unitsMillis = {604_800_000L, 86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
    String[] names = {"w", "d", "h", "m", "s", "ms"};
    for (int i = 0; i < unitsMillis.length; i++) {
      long n = millis / unitsMillis[i];
      if (n > 0) {
        out.append(n).append(names[i]);
        millis -= n * unitsMillis[i];
      }
    }
    return out.toString();
  }
}
