package dev.specwatch.cli;

import dev.specwatch.model.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli converters for the option types every command shares; registered in {@link Main}. */
final class CliTypes {
  private CliTypes() {}

  /** A positive duration in Prometheus' notation: {@code 30s}, {@code 5m}, {@code 1h30m}. */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return Durations.parse(value)
          .filter(d -> !d.isZero())
          .orElseThrow(
              () ->
                  new TypeConversionException(
                      "expected a duration like 30s, 5m or 1h30m, got '" + value + "'"));
    }
  }

  /** RFC 3339 ({@code 2026-11-30T12:00:00Z}) or Unix seconds ({@code 1764504000.5}). */
  static final class TimeConverter implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
      try {
        return Instant.parse(value);
      } catch (DateTimeParseException e) {
        try {
          return Instant.ofEpochMilli(Math.round(Double.parseDouble(value) * 1000));
        } catch (NumberFormatException nfe) {
          throw new TypeConversionException(
              "expected RFC 3339 (2026-11-30T12:00:00Z) or Unix seconds, got '" + value + "'");
        }
      }
    }
  }
}
