package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The recipe page's charts over time: how fine their steps are. */
class RecipeChartsTest {
  @Test
  void sixHoursAreDrawnInThirtySecondStepsSoANinetySecondRegressionShows() {
    // Before, 240 steps: 90 s over 6 h, and the demo's 90-second regression was one blurred
    // point at half its depth.
    assertThat(RecipeCharts.step(Duration.ofHours(6))).isEqualTo(Duration.ofSeconds(30));
    assertThat(Duration.ofSeconds(90).dividedBy(RecipeCharts.step(Duration.ofHours(6))))
        .isGreaterThanOrEqualTo(3);
    assertThat(RecipeCharts.step(Duration.ofHours(24))).isEqualTo(Duration.ofMinutes(2));
    assertThat(RecipeCharts.step(Duration.ofDays(7))).isEqualTo(Duration.ofMinutes(14));
    // Within Prometheus' 11,000 points a series at every span.
    for (Duration span :
        new Duration[] {Duration.ofHours(6), Duration.ofDays(1), Duration.ofDays(7)}) {
      assertThat(span.dividedBy(RecipeCharts.step(span))).isLessThanOrEqualTo(11_000);
    }
  }
}
