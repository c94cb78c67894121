package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SloStatusTest {
  @Test
  void burnRateFactorsFollowTheSreWorkbookScaledToThePeriod() {
    Duration month = Duration.ofDays(30);
    assertThat(SloStatus.WINDOWS)
        .extracting(w -> w.factor(month))
        .containsExactly(14.4, 6.0, 3.0, 1.0);
    assertThat(SloStatus.WINDOWS.get(0).factor(Duration.ofDays(28))).isCloseTo(13.44, within(1e-9));
  }

  @Test
  void firesOnlyWhenBothWindowsOfAPairBurn() {
    Duration month = Duration.ofDays(30);
    Map<Duration, Double> longOnly = Map.of(Duration.ofHours(1), 20.0, Duration.ofMinutes(5), 2.0);
    assertThat(SloStatus.burning(longOnly, month)).isNull();
    Map<Duration, Double> both = Map.of(Duration.ofHours(1), 20.0, Duration.ofMinutes(5), 15.0);
    assertThat(SloStatus.burning(both, month)).isEqualTo(SloStatus.WINDOWS.get(0));
    Map<Duration, Double> slow = Map.of(Duration.ofDays(3), 1.5, Duration.ofHours(6), 1.2);
    assertThat(SloStatus.burning(slow, month).severity())
        .isEqualTo(dev.specwatch.model.Severity.WARNING);
  }
}
