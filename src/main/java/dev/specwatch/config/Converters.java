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
