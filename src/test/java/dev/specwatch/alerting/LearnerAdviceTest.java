package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.detect.NoiseFit;
import dev.specwatch.detect.StepSample;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a recipe with too little history is told about its {@code learn} window. */
class LearnerAdviceTest {
  private static final Instant FROM = Instant.parse("2026-11-29T00:00:00Z");

  /**
   * The advice for {@code hours} of active history in a window of {@code learn} days whose data
   * begins {@code late} hours after the window's start.
   */
  private static String advice(long hours, long learn, long late) {
    List<StepSample> samples =
        List.of(new StepSample(FROM.plus(Duration.ofHours(late)), 0, 0, 0, 0));
    return Learner.advice(
        new NoiseFit.Insufficient(Duration.ofHours(hours)), samples, FROM, Duration.ofDays(learn));
  }

  @Test
  void aFullWindowWithIdleNightsIsToldHowManyDaysWouldDo() {
    // 19 hours a day (idle five hours a night): 2 days hold 38.
    assertThat(advice(19, 1, 0))
        .isEqualTo(
            "; the last 1d holds no more (stretches of more than an hour without traffic or"
                + " scrapes do not count): learn from 2d or more (thresholds.change.learn)");
    // 20 hours in 3 days: 24 hours need 3.6 days of it.
    assertThat(advice(20, 3, 0)).endsWith(": learn from 4d or more (thresholds.change.learn)");
    // Data from an hour after the window's start still makes a full window.
    assertThat(advice(19, 1, 1)).isNotEmpty();
  }

  @Test
  void trafficTooThinForAMonthGetsNoNumberAndAYoungOrSilentRecipeNoAdvice() {
    // 4 hours in a week: 42 days would do, past the 30 the advice names.
    assertThat(advice(4, 7, 0))
        .isEqualTo(
            "; the last 1w holds no more (stretches of more than an hour without traffic or"
                + " scrapes do not count)");
    // Younger than its window: waiting helps, and the status says only how much it has.
    assertThat(advice(10, 1, 14)).isEmpty();
    // No traffic at all: "0m of active history" says it.
    assertThat(advice(0, 1, 0)).isEmpty();
    assertThat(
            Learner.advice(
                new NoiseFit.Insufficient(Duration.ofHours(19)),
                List.of(),
                FROM,
                Duration.ofDays(1)))
        .isEmpty();
  }
}
