package dev.specwatch.model;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;

/**
 * A recurring interval of time with Alertmanager's {@code time_intervals} semantics
 * (prometheus/alertmanager, {@code timeinterval/timeinterval.go}, and its configuration docs): an
 * instant is inside when every field given matches it, and a field matches when any of its ranges
 * holds the instant's wall-clock value in {@link #location()}. A field left out matches every
 * instant. Times of day are minutes {@code [start, end)}; weekdays, days of the month, months and
 * years are inclusive ranges; a negative day of the month counts from its end ({@code -1} is the
 * last day).
 *
 * @param times minutes of the day, each {@code [start, end)} within 0..1440; empty: any time
 * @param weekdays inclusive ranges of 0 (Sunday) .. 6 (Saturday); empty: any day
 * @param daysOfMonth inclusive ranges of 1..31 or -31..-1; empty: any day
 * @param months inclusive ranges of 1..12; empty: any month
 * @param years inclusive ranges; empty: any year
 * @param location the time zone the fields are read in (UTC unless given)
 */
public record TimeInterval(
    List<Range> times,
    List<Range> weekdays,
    List<Range> daysOfMonth,
    List<Range> months,
    List<Range> years,
    ZoneId location) {

  /** An inclusive range (a time of day's end is exclusive). */
  public record Range(int begin, int end) {}

  /** Alertmanager's weekday names, Sunday (0) first. */
  public static final List<String> WEEKDAYS =
      List.of("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday");

  /** The months' names, January (1) first. */
  public static final List<String> MONTHS =
      List.of(
          "january",
          "february",
          "march",
          "april",
          "may",
          "june",
          "july",
          "august",
          "september",
          "october",
          "november",
          "december");

  public TimeInterval {
    times = List.copyOf(times);
    weekdays = List.copyOf(weekdays);
    daysOfMonth = List.copyOf(daysOfMonth);
    months = List.copyOf(months);
    years = List.copyOf(years);
  }

  /** Whether no field is given (such an interval would hold every instant). */
  public boolean isEmpty() {
    return times.isEmpty()
        && weekdays.isEmpty()
        && daysOfMonth.isEmpty()
        && months.isEmpty()
        && years.isEmpty();
  }

  /** Whether {@code at} lies in the interval. */
  public boolean contains(Instant at) {
    ZonedDateTime t = at.atZone(location);
    int minute = t.getHour() * 60 + t.getMinute();
    if (!times.isEmpty() && times.stream().noneMatch(r -> minute >= r.begin && minute < r.end)) {
      return false;
    }
    int length = t.toLocalDate().lengthOfMonth();
    if (!daysOfMonth.isEmpty()
        && daysOfMonth.stream().noneMatch(r -> dayOfMonthHolds(r, t.getDayOfMonth(), length))) {
      return false;
    }
    if (!within(months, t.getMonthValue())) {
      return false;
    }
    // DayOfWeek runs Monday (1) .. Sunday (7); Alertmanager's weekdays Sunday (0) .. Saturday (6).
    if (!within(weekdays, t.getDayOfWeek().getValue() % 7)) {
      return false;
    }
    return within(years, t.getYear());
  }

  private static boolean within(List<Range> ranges, int value) {
    return ranges.isEmpty() || ranges.stream().anyMatch(r -> value >= r.begin && value <= r.end);
  }

  /** Alertmanager's rule: negative days count from the month's end, clamped to the month. */
  private static boolean dayOfMonthHolds(Range r, int day, int length) {
    int begin = r.begin < 0 ? length + r.begin + 1 : r.begin;
    int end = r.end < 0 ? length + r.end + 1 : r.end;
    if (begin > length) {
      return false;
    }
    return day >= Math.max(begin, 1) && day <= Math.min(end, length);
  }

  /** A readable form for status lines: "01:00-03:30 monday-friday (Europe/Berlin)". */
  public String describe() {
    StringBuilder out = new StringBuilder();
    for (Range r : times) {
      append(out, hhmm(r.begin) + "-" + hhmm(r.end));
    }
    for (Range r : weekdays) {
      append(
          out,
          r.begin == r.end
              ? WEEKDAYS.get(r.begin)
              : WEEKDAYS.get(r.begin) + "-" + WEEKDAYS.get(r.end));
    }
    for (Range r : daysOfMonth) {
      append(out, days(r));
    }
    for (Range r : months) {
      append(
          out,
          "in "
              + (r.begin == r.end
                  ? MONTHS.get(r.begin - 1)
                  : MONTHS.get(r.begin - 1) + "-" + MONTHS.get(r.end - 1)));
    }
    for (Range r : years) {
      append(out, r.begin == r.end ? "" + r.begin : r.begin + "-" + r.end);
    }
    return out + " (" + (location.equals(ZoneOffset.UTC) ? "UTC" : location.getId()) + ")";
  }

  private static String days(Range r) {
    if (r.end == -1) {
      return r.begin == -1 ? "last day of the month" : "last " + -r.begin + " days of the month";
    }
    return r.begin == r.end ? "day " + r.begin : "days " + r.begin + " to " + r.end;
  }

  private static void append(StringBuilder out, String part) {
    out.append(out.length() == 0 ? "" : " ").append(part);
  }

  private static String hhmm(int minute) {
    return String.format(Locale.ROOT, "%02d:%02d", minute / 60, minute % 60);
  }
}
