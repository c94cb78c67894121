package dev.specwatch.detect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The record of a history's short excursions and the line it sets a page (docs/DETECTION.md, "Short
 * excursions"): the depth for an excursion's length, the line at the floor, and which of the
 * history's windows make the record.
 */
class ShortExcursionsTest {
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
  private static final Duration SAMPLE = Duration.ofMinutes(5);

  private static NoiseModel model(Duration history) {
    return new NoiseModel(null, 0.6, 2.0, 0.0001, 0.0001, 1200, history, 2016, T0);
  }

  private static final NoiseModel RECORDED =
      model(Duration.ofDays(7))
          .withShortExcursions(
              List.of(
                  new NoiseModel.ShortExcursion(Duration.ofMinutes(5), -0.20),
                  new NoiseModel.ShortExcursion(Duration.ofMinutes(2), -0.30),
                  new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.10)));

  @Test
  void theDepthForALengthIsTheShortestRecordsBelowItLinearBetweenAndNothingPastTheLongest() {
    assertThat(RECORDED.shortExcursionDepth(Duration.ofSeconds(30))).isEqualTo(-0.30);
    assertThat(RECORDED.shortExcursionDepth(Duration.ofMinutes(2))).isEqualTo(-0.30);
    assertThat(RECORDED.shortExcursionDepth(Duration.ofSeconds(210)))
        .isCloseTo(-0.25, within(1e-12));
    assertThat(RECORDED.shortExcursionDepth(Duration.ofMinutes(10))).isEqualTo(-0.10);
    assertThat(RECORDED.shortExcursionDepth(Duration.ofMinutes(11))).isNaN();
    assertThat(model(Duration.ofDays(7)).shortExcursionDepth(Duration.ofMinutes(1))).isNaN();
  }

  @Test
  void anExcursionPagesOnlyDeeperThanTheRecordWouldBeWithTheLevelAtTheFloor() {
    // At 5 minutes the record is −20 %: at a 10 % floor the line is 0.9 × 0.8 − 1 = −28 %.
    Duration five = Duration.ofMinutes(5);
    assertThat(RECORDED.withinShortExcursions(five, -0.279, 0.1)).isTrue();
    assertThat(RECORDED.withinShortExcursions(five, -0.281, 0.1)).isFalse();
    // A 20 % floor: 0.8 × 0.8 − 1 = −36 %.
    assertThat(RECORDED.withinShortExcursions(five, -0.35, 0.2)).isTrue();
    assertThat(RECORDED.withinShortExcursions(five, -0.37, 0.2)).isFalse();
    // Past the longest record, and without a record, nothing is held.
    assertThat(RECORDED.withinShortExcursions(Duration.ofMinutes(11), -0.11, 0.1)).isFalse();
    assertThat(model(Duration.ofDays(7)).withinShortExcursions(five, -0.11, 0.1)).isFalse();
  }

  @Test
  void theRecordIsTheDeepestExcursionOfAWeekOneExcursionCountedOnce() {
    Map<Instant, Double> lows = new HashMap<>();
    for (int i = 0; i < 14 * 288; i++) {
      lows.put(T0.plus(SAMPLE.multipliedBy(i)), 0.57); // 5 % below the 0.6 level
    }
    // One excursion seen by two neighbouring samples (−40 %, −38 %), and two others apart.
    lows.put(T0.plus(SAMPLE.multipliedBy(100)), 0.36);
    lows.put(T0.plus(SAMPLE.multipliedBy(101)), 0.372);
    lows.put(T0.plus(SAMPLE.multipliedBy(2000)), 0.42);
    lows.put(T0.plus(SAMPLE.multipliedBy(3000)), 0.48);
    Duration five = Duration.ofMinutes(5);
    // Two weeks of history: the second deepest excursion (−30 %), not the same one's other sample.
    NoiseModel.ShortExcursion twoWeeks =
        ShortExcursions.of(five, lows, Map.of(), model(Duration.ofDays(14)), SAMPLE, 0.2);
    assertThat(twoWeeks.length()).isEqualTo(five);
    assertThat(twoWeeks.depth()).isCloseTo(-0.30, within(1e-9));
    // A week or less: the deepest.
    assertThat(ShortExcursions.of(five, lows, Map.of(), model(Duration.ofDays(3)), SAMPLE, 0.2))
        .isEqualTo(new NoiseModel.ShortExcursion(five, -0.40));
    // An incident: the deepest excursion's block was 25 % below the level, a sustained drop.
    NoiseModel.ShortExcursion withoutIncident =
        ShortExcursions.of(
            five,
            lows,
            Map.of(
                T0.plus(SAMPLE.multipliedBy(100)), 0.45, T0.plus(SAMPLE.multipliedBy(101)), 0.45),
            model(Duration.ofDays(3)),
            SAMPLE,
            0.2);
    assertThat(withoutIncident.depth()).isCloseTo(-0.30, within(1e-9));
    assertThat(ShortExcursions.of(five, Map.of(), Map.of(), model(Duration.ofDays(3)), SAMPLE, 0.2))
        .isNull();
  }

  @Test
  void lengthsAreWholeStepsAndWindowsNeedHalfTheReferenceTraffic() {
    assertThat(ShortExcursions.lengths(Duration.ofSeconds(30))).isEqualTo(ShortExcursions.LENGTHS);
    assertThat(ShortExcursions.lengths(Duration.ofMinutes(5)))
        .containsExactly(Duration.ofMinutes(5), Duration.ofMinutes(10));
    assertThat(ShortExcursions.lengths(Duration.ofMinutes(3))).isEmpty();
    // 1,200 trials a step at the reference: a 2-minute window of 30-s steps needs 2,400.
    assertThat(
            ShortExcursions.minTrials(
                model(Duration.ofDays(7)), Duration.ofMinutes(2), Duration.ofSeconds(30)))
        .isEqualTo(2400);
  }
}
