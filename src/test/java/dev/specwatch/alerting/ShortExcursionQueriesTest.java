package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ShortExcursionQueriesTest {
  private static final Instant AT = Instant.parse("2026-11-10T14:07:30Z");
  private static final Duration BLOCK = Duration.ofMinutes(15);

  @Test
  void theRecordLooksBackAWeekWhenTheLearnedHistoryIsShorter() {
    // learn: 1d: the record's history starts 7 days back, on a block boundary.
    Instant day = Instant.parse("2026-11-09T14:00:00Z");
    assertThat(ShortExcursionQueries.lookFrom(day, AT, BLOCK))
        .isEqualTo(Instant.parse("2026-11-03T14:00:00Z"));
  }

  @Test
  void aLearnedHistoryOfAWeekOrMoreIsTheRecordsOwn() {
    Instant week = Instant.parse("2026-11-03T14:00:00Z");
    Instant fiveWeeks = Instant.parse("2026-10-06T14:00:00Z");
    assertThat(ShortExcursionQueries.lookFrom(week, AT, BLOCK)).isEqualTo(week);
    assertThat(ShortExcursionQueries.lookFrom(fiveWeeks, AT, BLOCK)).isEqualTo(fiveWeeks);
  }

  @Test
  void theStatusSaysWhichDaysTheRecordIsOf() {
    java.util.List<dev.specwatch.detect.NoiseModel.ShortExcursion> record =
        java.util.List.of(
            new dev.specwatch.detect.NoiseModel.ShortExcursion(Duration.ofMinutes(2), -0.42),
            new dev.specwatch.detect.NoiseModel.ShortExcursion(Duration.ofMinutes(30), -0.12));
    // learn: 1d: the record is of the last week all the same.
    assertThat(ShortExcursionQueries.status(model(Duration.ofDays(1)).withShortExcursions(record)))
        .isEqualTo(
            "; short windows of the last 7 days fall -42 % (2m), -12 % (30m) once per"
                + " false_alarm_interval");
    assertThat(ShortExcursionQueries.status(model(Duration.ofDays(35)).withShortExcursions(record)))
        .startsWith("; short windows of the last 35 days fall -42 % (2m)");
    assertThat(ShortExcursionQueries.status(model(Duration.ofDays(7)))).isEmpty();
  }

  private static dev.specwatch.detect.NoiseModel model(Duration history) {
    return new dev.specwatch.detect.NoiseModel(
        null, 0.6, 2.0, 0.0001, 0.0001, 1200, history, 2016, AT);
  }
}
