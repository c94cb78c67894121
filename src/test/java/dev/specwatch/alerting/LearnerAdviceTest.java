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

  private static List<StepSample> from(Instant first) {
    return List.of(new StepSample(first, 0, 0, 0, 0));
  }

  private static NoiseFit.Insufficient had(Duration history) {
    return new NoiseFit.Insufficient("learning: …", history);
  }

  @Test
  void aFullWindowWithIdleNightsIsToldHowManyDaysWouldDo() {
    // 19 hours a day (idle five hours a night): 2 days hold 38.
    assertThat(Learner.advice(had(Duration.ofHours(19)), from(FROM), FROM, Duration.ofDays(1)))
        .isEqualTo(
            "; the last 1d holds no more (stretches of more than an hour without traffic or"
                + " scrapes do not count): learn from 2d or more (thresholds.change.learn)");
    // 20 hours in 3 days: 24 hours need 3.6 days of it.
    assertThat(Learner.advice(had(Duration.ofHours(20)), from(FROM), FROM, Duration.ofDays(3)))
        .endsWith(": learn from 4d or more (thresholds.change.learn)");
    // Data from up to an hour after the window's start still counts as a full window.
    assertThat(
            Learner.advice(
                had(Duration.ofHours(19)),
                from(FROM.plus(Duration.ofHours(1))),
                FROM,
                Duration.ofDays(1)))
        .isNotEmpty();
  }

  @Test
  void trafficTooThinForAMonthGetsNoNumberAndAYoungOrSilentRecipeNoAdvice() {
    // 4 hours in a week: 42 days would do, past the 30 the advice names.
    assertThat(Learner.advice(had(Duration.ofHours(4)), from(FROM), FROM, Duration.ofDays(7)))
        .isEqualTo(
            "; the last 1w holds no more (stretches of more than an hour without traffic or"
                + " scrapes do not count)");
    // Younger than its window: waiting helps, and the status says only how much it has.
    assertThat(
            Learner.advice(
                had(Duration.ofHours(10)),
                from(FROM.plus(Duration.ofHours(14))),
                FROM,
                Duration.ofDays(1)))
        .isEmpty();
    // No traffic at all: "0m of active history" says it.
    assertThat(Learner.advice(had(Duration.ZERO), from(FROM), FROM, Duration.ofDays(1))).isEmpty();
    assertThat(Learner.advice(had(Duration.ofHours(19)), List.of(), FROM, Duration.ofDays(1)))
        .isEmpty();
  }
}
