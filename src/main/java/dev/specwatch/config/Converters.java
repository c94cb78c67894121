package dev.specwatch.config;

import dev.specwatch.model.Severity;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.yaml.MapReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed values shared by the readers: URLs, sizes, severities, times. Each reports its own error.
 */
final class Converters {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KB|KiB|MB|MiB|GB|GiB)?");

  private Converters() {}

  private static final String[] CRON_FIELDS = {
    "seconds", "minutes", "hours", "day-of-month", "month", "day-of-week"
  };
  private static final int[][] CRON_RANGES = {{0, 59}, {0, 59}, {0, 23}, {1, 31}, {1, 12}, {1, 7}};

  /**
   * The first number of a Quartz cron expression outside its field's range, as a message (the part
   * after a {@code /} is an increment and not checked; {@code #n} must be 1..5).
   */
  static Optional<String> cronOutOfRange(String cron) {
    String[] fields = cron.trim().split("\\s+");
    for (int i = 0; i < Math.min(fields.length, CRON_FIELDS.length); i++) {
      for (String part : fields[i].split(",")) {
        String base = part.split("/")[0];
        String[] nth = base.split("#");
        Matcher numbers = Pattern.compile("\\d+").matcher(nth[0]);
        while (numbers.find()) {
          int n = Integer.parseInt(numbers.group());
          if (n < CRON_RANGES[i][0] || n > CRON_RANGES[i][1]) {
            return Optional.of(
                CRON_FIELDS[i]
                    + " "
                    + n
                    + " is out of range "
                    + CRON_RANGES[i][0]
                    + ".."
                    + CRON_RANGES[i][1]
                    + " (seconds minutes hours day-of-month month day-of-week)");
          }
        }
        if (nth.length == 2 && !nth[1].matches("[1-5]")) {
          return Optional.of(CRON_FIELDS[i] + " #" + nth[1] + " must be #1..#5");
        }
      }
    }
    return Optional.empty();
  }

  static SpecwatchConfig.Tls smtpTls(MapReader s) {
    String tls = s.string("tls", "starttls");
    return switch (tls) {
      case "starttls" -> SpecwatchConfig.Tls.STARTTLS;
      case "smtps" -> SpecwatchConfig.Tls.SMTPS;
      case "none" -> SpecwatchConfig.Tls.NONE;
      default -> {
        s.error("tls", "one of starttls, smtps, none");
        yield SpecwatchConfig.Tls.STARTTLS;
      }
    };
  }

  static boolean hasAny(MapReader n, String... keys) {
    for (String key : keys) {
      if (n.has(key) || n.has(key + "_file")) {
        return true;
      }
    }
    return false;
  }

  static Optional<URI> url(MapReader r, String key, boolean httpOnly) {
    Optional<String> text = r.optionalString(key);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(text.get().strip());
      if (uri.getScheme() == null
          || uri.getHost() == null
          || (httpOnly && !uri.getScheme().matches("https?"))) {
        r.error(key, "expected an http(s) URL with a host, e.g. http://127.0.0.1:9090");
        return Optional.empty();
      }
      if (uri.getUserInfo() != null) {
        // Never echo the URL: it carries credentials.
        r.error(key, "must not contain credentials; use basic_auth or bearer_token");
        return Optional.empty();
      }
      return Optional.of(uri);
    } catch (URISyntaxException e) {
      r.error(key, "not a valid URL");
      return Optional.empty();
    }
  }

  static long size(MapReader r, String key, long defaultValue) {
    Optional<String> text = r.optionalString(key);
    if (text.isEmpty()) {
      return defaultValue;
    }
    Matcher m = SIZE.matcher(text.get().strip());
    if (!m.matches()) {
      r.error(key, "expected a size like 64MiB, 10MB or 1048576, got '" + text.get() + "'");
      return defaultValue;
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2);
    long factor =
        switch (unit) {
          case "KB" -> 1000L;
          case "KiB" -> 1024L;
          case "MB" -> 1000L * 1000;
          case "MiB" -> 1024L * 1024;
          case "GB" -> 1000L * 1000 * 1000;
          case "GiB" -> 1024L * 1024 * 1024;
          default -> 1L;
        };
    if (n < 1) {
      r.error(key, "must be positive");
      return defaultValue;
    }
    return n * factor;
  }

  static Optional<Instant> instant(MapReader m, String key) {
    if (!m.has(key)) {
      m.error(key, "is required, e.g. 2026-12-01T02:00:00Z");
      return Optional.empty();
    }
    Optional<String> text = m.optionalString(key);
    try {
      return text.map(Instant::parse);
    } catch (DateTimeParseException e) {
      m.error(key, "expected an RFC 3339 time like 2026-12-01T02:00:00Z, got '" + text.get() + "'");
      return Optional.empty();
    }
  }

  /** The optional {@code severity} key. */
  static Optional<Severity> severity(MapReader r) {
    Optional<String> text = r.optionalString("severity");
    Optional<Severity> severity = text.flatMap(Severity::parse);
    if (text.isPresent() && severity.isEmpty()) {
      r.error("severity", "one of info, warning, critical");
    }
    return severity;
  }
}
