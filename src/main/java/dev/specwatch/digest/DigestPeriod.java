package dev.specwatch.digest;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One ISO week (Monday 00:00 to the next Monday 00:00) in a time zone, e.g. 2026-W48. */
public record DigestPeriod(int year, int week, ZoneId zone) {
  private static final Pattern LABEL = Pattern.compile("(\\d{4})-W(\\d{2})");

  public static DigestPeriod of(LocalDate anyDay, ZoneId zone) {
    return new DigestPeriod(
        anyDay.get(IsoFields.WEEK_BASED_YEAR), anyDay.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR), zone);
  }

  /** The last complete week before {@code now} in {@code zone}. */
  public static DigestPeriod lastComplete(Instant now, ZoneId zone) {
    return of(now.atZone(zone).toLocalDate().minusWeeks(1), zone);
  }

  /** Parses {@code 2026-W47}. */
  public static Optional<DigestPeriod> parse(String label, ZoneId zone) {
    Matcher m = LABEL.matcher(label.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    int year = Integer.parseInt(m.group(1));
    int week = Integer.parseInt(m.group(2));
    LocalDate monday =
        LocalDate.of(year, 1, 4)
            .with(IsoFields.WEEK_OF_WEEK_BASED_YEAR, week)
            .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
    if (week < 1 || monday.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR) != week) {
      return Optional.empty();
    }
    return Optional.of(new DigestPeriod(year, week, zone));
  }

  public LocalDate monday() {
    return LocalDate.of(year, 1, 4)
        .with(IsoFields.WEEK_OF_WEEK_BASED_YEAR, week)
        .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
  }

  public Instant start() {
    return monday().atStartOfDay(zone).toInstant();
  }

  public Instant end() {
    return monday().plusWeeks(1).atStartOfDay(zone).toInstant();
  }

  public DigestPeriod previous() {
    return of(monday().minusWeeks(1), zone);
  }

  /** The start of each day of the week, plus the end: eight instants. */
  public Instant dayBoundary(int day) {
    ZonedDateTime t = monday().plusDays(day).atStartOfDay(zone);
    return t.toInstant();
  }

  public String label() {
    return String.format("%04d-W%02d", year, week);
  }
}
