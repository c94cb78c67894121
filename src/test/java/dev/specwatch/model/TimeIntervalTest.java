package dev.specwatch.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.TimeInterval.Range;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Alertmanager's time-interval semantics, case by case. */
class TimeIntervalTest {
  private static TimeInterval times(int from, int to) {
    return new TimeInterval(
        List.of(new Range(from, to)), List.of(), List.of(), List.of(), List.of(), ZoneOffset.UTC);
  }

  private static boolean at(TimeInterval i, String instant) {
    return i.contains(Instant.parse(instant));
  }

  @Test
  void aTimeOfDayIsStartInclusiveEndExclusiveAnd24IsTheDaysEnd() {
    TimeInterval night = times(22 * 60, 24 * 60);
    assertThat(at(night, "2026-12-07T21:59:59Z")).isFalse();
    assertThat(at(night, "2026-12-07T22:00:00Z")).isTrue();
    assertThat(at(night, "2026-12-07T23:59:59Z")).isTrue();
    assertThat(at(night, "2026-12-08T00:00:00Z")).isFalse();
  }

  @Test
  void everyGivenFieldMustMatchAndAnyRangeOfAFieldDoes() {
    // 09:00-10:00 or 14:00-15:00, Monday or Wednesday to Thursday.
    TimeInterval i =
        new TimeInterval(
            List.of(new Range(540, 600), new Range(840, 900)),
            List.of(new Range(1, 1), new Range(3, 4)),
            List.of(),
            List.of(),
            List.of(),
            ZoneOffset.UTC);
    assertThat(at(i, "2026-12-07T09:30:00Z")).isTrue(); // Monday
    assertThat(at(i, "2026-12-07T12:00:00Z")).isFalse(); // Monday, between the times
    assertThat(at(i, "2026-12-08T09:30:00Z")).isFalse(); // Tuesday
    assertThat(at(i, "2026-12-10T14:59:00Z")).isTrue(); // Thursday
    assertThat(at(i, "2026-12-13T09:30:00Z")).isFalse(); // Sunday
  }

  @Test
  void sundayIsDayZero() {
    TimeInterval sunday =
        new TimeInterval(
            List.of(), List.of(new Range(0, 0)), List.of(), List.of(), List.of(), ZoneOffset.UTC);
    assertThat(at(sunday, "2026-12-13T00:00:00Z")).isTrue();
    assertThat(at(sunday, "2026-12-12T23:59:59Z")).isFalse();
    assertThat(at(sunday, "2026-12-14T00:00:00Z")).isFalse();
  }

  @Test
  void negativeDaysCountFromTheMonthsEndAndRangesAreClampedToTheMonth() {
    TimeInterval lastThree =
        new TimeInterval(
            List.of(), List.of(), List.of(new Range(-3, -1)), List.of(), List.of(), ZoneOffset.UTC);
    assertThat(at(lastThree, "2028-02-27T12:00:00Z")).isTrue(); // leap year: 27, 28, 29
    assertThat(at(lastThree, "2028-02-26T12:00:00Z")).isFalse();
    assertThat(at(lastThree, "2027-02-26T12:00:00Z")).isTrue(); // 26, 27, 28
    assertThat(at(lastThree, "2026-12-29T12:00:00Z")).isTrue();
    assertThat(at(lastThree, "2026-12-28T12:00:00Z")).isFalse();
    TimeInterval upTo31 =
        new TimeInterval(
            List.of(), List.of(), List.of(new Range(29, 31)), List.of(), List.of(), ZoneOffset.UTC);
    assertThat(at(upTo31, "2027-02-28T12:00:00Z")).isFalse(); // no 29th in February 2027
    assertThat(at(upTo31, "2028-02-29T12:00:00Z")).isTrue();
    assertThat(at(upTo31, "2026-04-30T12:00:00Z")).isTrue(); // clamped to April's 30
  }

  @Test
  void theFieldsAreReadInTheLocationAcrossDaylightSavingTime() {
    // 02:00-03:00 Berlin time: 01:00 UTC in winter (CET), 00:00 UTC in summer (CEST).
    TimeInterval berlin =
        new TimeInterval(
            List.of(new Range(120, 180)),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            ZoneId.of("Europe/Berlin"));
    assertThat(at(berlin, "2026-12-07T01:30:00Z")).isTrue();
    assertThat(at(berlin, "2026-12-07T00:30:00Z")).isFalse();
    assertThat(at(berlin, "2026-07-07T00:30:00Z")).isTrue();
    assertThat(at(berlin, "2026-07-07T01:30:00Z")).isFalse();
    // The night clocks go forward (2026-03-29) has no 02:00-03:00 in Berlin: nothing matches.
    assertThat(at(berlin, "2026-03-29T00:59:59Z")).isFalse();
    assertThat(at(berlin, "2026-03-29T01:00:00Z")).isFalse();
  }

  @Test
  void monthsAndYearsAreInclusive() {
    TimeInterval q1of2027 =
        new TimeInterval(
            List.of(),
            List.of(),
            List.of(),
            List.of(new Range(1, 3)),
            List.of(new Range(2027, 2027)),
            ZoneOffset.UTC);
    assertThat(at(q1of2027, "2027-03-31T23:59:59Z")).isTrue();
    assertThat(at(q1of2027, "2027-04-01T00:00:00Z")).isFalse();
    assertThat(at(q1of2027, "2028-01-15T00:00:00Z")).isFalse();
    assertThat(q1of2027.describe()).isEqualTo("in january-march 2027 (UTC)");
    assertThat(q1of2027.isEmpty()).isFalse();
    assertThat(
            new TimeInterval(List.of(), List.of(), List.of(), List.of(), List.of(), ZoneOffset.UTC)
                .isEmpty())
        .isTrue();
  }
}
