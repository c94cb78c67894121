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
}
