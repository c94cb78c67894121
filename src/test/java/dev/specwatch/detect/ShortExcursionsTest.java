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
    assertThat(RECORDED.shortExcursionDepth(Duration.ofSeconds(30), 0.1)).isEqualTo(-0.30);
    assertThat(RECORDED.shortExcursionDepth(Duration.ofMinutes(2), 0.1)).isEqualTo(-0.30);
    assertThat(RECORDED.shortExcursionDepth(Duration.ofSeconds(210), 0.1))
        .isCloseTo(-0.25, within(1e-12));
    assertThat(RECORDED.shortExcursionDepth(Duration.ofMinutes(10), 0.1)).isEqualTo(-0.10);
    assertThat(RECORDED.shortExcursionDepth(Duration.ofMinutes(11), 0.1)).isNaN();
    assertThat(model(Duration.ofDays(7)).shortExcursionDepth(Duration.ofMinutes(1), 0.1)).isNaN();
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
  void aRecordOfClustersHoldsOnlyWhereTheHistorysClustersWentUnderTheFloor() {
    NoiseModel clusters =
        model(Duration.ofDays(7))
            .withShortExcursions(
                List.of(
                    new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.30),
                    new NoiseModel.ShortExcursion(Duration.ofMinutes(20), -0.24),
                    new NoiseModel.ShortExcursion(Duration.ofMinutes(30), -0.08)));
    // 20 minutes went 24 % under the level, deeper than the 10 % floor: it counts, linear from 10.
    assertThat(clusters.shortExcursionDepth(Duration.ofMinutes(15), 0.1))
        .isCloseTo(-0.27, within(1e-12));
    // 0.9 × 0.76 − 1 = −31.6 % at 20 minutes.
    assertThat(clusters.withinShortExcursions(Duration.ofMinutes(20), -0.31, 0.1)).isTrue();
    assertThat(clusters.withinShortExcursions(Duration.ofMinutes(20), -0.32, 0.1)).isFalse();
    // 30 minutes went only 8 % under, shallower than the floor: no cluster held past 20 minutes
    // (a 15 % drop there is not made to wait on the wander's longer windows)...
    assertThat(clusters.shortExcursionDepth(Duration.ofMinutes(25), 0.1)).isNaN();
    assertThat(clusters.withinShortExcursions(Duration.ofMinutes(25), -0.15, 0.1)).isFalse();
    // ...but with a 5 % floor it is deeper than the floor, and counts.
    assertThat(clusters.withinShortExcursions(Duration.ofMinutes(30), -0.10, 0.05)).isTrue();
    // Lengths up to 10 minutes count however shallow; with a 5 % floor the 30-minute record does.
    assertThat(RECORDED.withinShortExcursions(Duration.ofMinutes(10), -0.18, 0.1)).isTrue();
    assertThat(clusters.shortExcursionDepth(Duration.ofMinutes(30), 0.05))
        .isCloseTo(-0.08, within(1e-12));
  }

  @Test
  void aRecordOfRunsHoldsOnlyWhereTheHistorysRunsWentUnderTheBackstopsLine() {
    NoiseModel jobs = withHour(-0.22);
    NoiseModel wander = withHour(-0.12);
    // The history's hours went 22 % under, past the backstop's line (20 % at a 10 % floor): a run
    // of 45 minutes is held to the record, linear from 30 (−24 %), no deeper than the history's
    // own runs at its normal level: not composed with the floor (that would be −31.6 %), so a
    // 30 % drop is paged at half an hour.
    assertThat(jobs.shortExcursionDepth(Duration.ofMinutes(45), 0.1))
        .isCloseTo(-0.24, within(1e-12));
    assertThat(jobs.withinShortExcursions(Duration.ofMinutes(45), -0.23, 0.1)).isTrue();
    assertThat(jobs.withinShortExcursions(Duration.ofMinutes(45), -0.25, 0.1)).isFalse();
    assertThat(jobs.withinShortExcursions(Duration.ofMinutes(45), -0.30, 0.1)).isFalse();
    // Up to half an hour it is composed with the floor as before: 0.9 × 0.74 − 1 = −33.4 %.
    assertThat(jobs.withinShortExcursions(Duration.ofMinutes(30), -0.33, 0.1)).isTrue();
    assertThat(jobs.withinShortExcursions(Duration.ofMinutes(61), -0.15, 0.1)).isFalse();
    // Hours that only wandered 12 % under (past the floor, short of the line) hold nothing past 30
    // minutes: a 15 % drop is not made to wait the hour. Up to 30 minutes the record is as before.
    assertThat(wander.shortExcursionDepth(Duration.ofMinutes(31), 0.1)).isNaN();
    assertThat(wander.withinShortExcursions(Duration.ofMinutes(45), -0.15, 0.1)).isFalse();
    assertThat(wander.shortExcursionDepth(Duration.ofMinutes(30), 0.1))
        .isCloseTo(-0.26, within(1e-12));
    // With a 5 % floor the line is 10 % under, and the wander's hours count.
    assertThat(wander.shortExcursionDepth(Duration.ofMinutes(60), 0.05))
        .isCloseTo(-0.12, within(1e-12));
  }

  /** A record of −30 % at 10 minutes, −26 % at 30 and {@code hour} at 60. */
  private static NoiseModel withHour(double hour) {
    return model(Duration.ofDays(7))
        .withShortExcursions(
            List.of(
                new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.30),
                new NoiseModel.ShortExcursion(Duration.ofMinutes(30), -0.26),
                new NoiseModel.ShortExcursion(Duration.ofMinutes(60), hour)));
  }

  /** Five-minute samples over {@code days}, each {@code fall} below the 0.6 level. */
  private static Map<Instant, Double> flat(int days, double fall) {
    Map<Instant, Double> lows = new HashMap<>();
    for (int i = 0; i < days * 288; i++) {
      lows.put(T0.plus(SAMPLE.multipliedBy(i)), 0.6 * (1 - fall));
    }
    return lows;
  }

  @Test
  void withTooFewPeriodsTheRecordIsTheDeepestSeen() {
    Duration five = Duration.ofMinutes(5);
    Map<Instant, Double> lows = flat(1, 0.05);
    lows.put(T0.plus(SAMPLE.multipliedBy(100)), 0.36); // −40 %
    lows.put(T0.plus(SAMPLE.multipliedBy(200)), 0.42); // −30 %
    // One day is four periods, fewer than a fit needs: the deepest seen.
    assertThat(
            ShortExcursions.of(
                five, lows, Map.of(), model(Duration.ofDays(1)), 0.2, Duration.ofDays(30)))
        .isEqualTo(new NoiseModel.ShortExcursion(five, -0.40));
    assertThat(
            ShortExcursions.of(
                five, Map.of(), Map.of(), model(Duration.ofDays(1)), 0.2, Duration.ofDays(30)))
        .isNull();
  }

  /** Blocks at the 0.6 level at every sample of a day, but {@code under} 25 % below it. */
  private static Map<Instant, Double> blocksUnder(int... under) {
    Map<Instant, Double> blocks = new HashMap<>();
    for (int i = 0; i < 288; i++) {
      blocks.put(T0.plus(SAMPLE.multipliedBy(i)), 0.6);
    }
    for (int i : under) {
      blocks.put(T0.plus(SAMPLE.multipliedBy(i)), 0.45);
    }
    return blocks;
  }

  private static double depthWith(Map<Instant, Double> lows, Map<Instant, Double> blocks) {
    return ShortExcursions.of(
            Duration.ofMinutes(5),
            lows,
            blocks,
            model(Duration.ofDays(1)),
            0.2,
            Duration.ofDays(30))
        .depth();
  }

  @Test
  void anIncidentIsARunUnderTheBackstopsLineAsLongAsTheLongestLength() {
    Map<Instant, Double> lows = flat(1, 0.05);
    lows.put(T0.plus(SAMPLE.multipliedBy(100)), 0.36); // −40 %, in the run under the line
    lows.put(T0.plus(SAMPLE.multipliedBy(200)), 0.42); // −30 %, elsewhere
    // A run of blocks 25 % under from sample 94 to 106 spans an hour: a sustained drop, the rule's
    // to page whatever the record says; its −40 % is set aside.
    int[] hour = java.util.stream.IntStream.rangeClosed(94, 106).toArray();
    assertThat(depthWith(lows, blocksUnder(hour))).isCloseTo(-0.30, within(1e-9));
    // The same with one block unknown (no traffic): an absent block does not end a run.
    Map<Instant, Double> hole = blocksUnder(hour);
    hole.remove(T0.plus(SAMPLE.multipliedBy(100)));
    assertThat(depthWith(lows, hole)).isCloseTo(-0.30, within(1e-9));
    // A run of 30 minutes (97 to 103) came back on its own: an excursion like any other, however
    // deep, and the record's (an incident until 2026-12-07, when the record gained an hour's
    // length); until 2026-12-06 any block under the line was set aside, and this read −30 %.
    assertThat(depthWith(lows, blocksUnder(97, 98, 99, 100, 101, 102, 103)))
        .isCloseTo(-0.40, within(1e-9));
    // Two runs of 55 and 25 minutes with a block at the level between are two excursions.
    assertThat(
            depthWith(lows, blocksUnder(java.util.stream.IntStream.rangeClosed(88, 106).toArray())))
        .isCloseTo(-0.30, within(1e-9));
    Map<Instant, Double> split =
        blocksUnder(
            java.util.stream.IntStream.rangeClosed(88, 106).filter(i -> i != 100).toArray());
    assertThat(depthWith(lows, split)).isCloseTo(-0.40, within(1e-9));
    // Only the run's samples are set aside (as before 2026-12-06): a sample after its last block
    // counts. Setting its half-hour either side aside too was tried and not kept: on a history
    // whose healthy runs pass 30 minutes it left their abrupt starts out of the record.
    Map<Instant, Double> after = new HashMap<>(lows);
    after.put(T0.plus(SAMPLE.multipliedBy(100)), 0.57);
    after.put(T0.plus(SAMPLE.multipliedBy(107)), 0.36);
    assertThat(depthWith(after, blocksUnder(hour))).isCloseTo(-0.40, within(1e-9));
  }

  @Test
  void theRecordIsTheDepthAPeriodsDeepestPassesOncePerFalseAlarmInterval() {
    // 500 days of six-hour periods whose deepest falls are Gumbel (location 0.10, scale 0.03),
    // drawn by the inverse of its distribution function: the depth passed once in five years
    // (7,300 periods) is 0.10 + 0.03 × −ln(−ln(1 − 1/7300)) = 0.3669, deeper than the deepest of
    // the 2,000 drawn (about 0.33); once in 90 days (360 periods) 0.2765.
    java.util.SplittableRandom random = new java.util.SplittableRandom(7);
    Map<Instant, Double> lows = flat(500, 0.01);
    long samplesPerPeriod = ShortExcursions.PERIOD.toMinutes() / 5;
    for (long p = 0; p < 500 * 4; p++) {
      double fall = 0.10 - 0.03 * Math.log(-Math.log(random.nextDouble()));
      long at = p * samplesPerPeriod + random.nextLong(samplesPerPeriod);
      lows.put(T0.plus(SAMPLE.multipliedBy(at)), 0.6 * (1 - Math.min(0.99, fall)));
    }
    NoiseModel m = model(Duration.ofDays(500));
    Duration two = Duration.ofMinutes(2);
    assertThat(ShortExcursions.of(two, lows, Map.of(), m, 0.9, Duration.ofDays(5 * 365)).depth())
        .isCloseTo(-0.3669, within(0.015));
    // Never shallower than the deepest seen: at 30 days (a depth 500 days pass 17 times) and at
    // one period, that.
    double deepest = lows.values().stream().mapToDouble(low -> low / 0.6 - 1).min().orElseThrow();
    assertThat(ShortExcursions.of(two, lows, Map.of(), m, 0.9, Duration.ofDays(30)).depth())
        .isCloseTo(deepest, within(1e-9));
    assertThat(ShortExcursions.of(two, lows, Map.of(), m, 0.9, Duration.ofHours(6)).depth())
        .isCloseTo(deepest, within(1e-9));
    // The maths alone, on exact quantiles of that Gumbel (no sampling error).
    double[] maxima = new double[1000];
    for (int i = 0; i < maxima.length; i++) {
      maxima[i] = 0.10 - 0.03 * Math.log(-Math.log((i + 0.5) / maxima.length));
    }
    assertThat(ShortExcursions.returnLevel(maxima, 360)).isCloseTo(0.2765, within(0.002));
  }

  @Test
  void quietWindowsSetTheRecordWhereDeeperThanTheFitButAreNoDrawsOfIt() {
    // The busy hours: 500 days whose last three six-hour periods have Gumbel deepest falls, as
    // above; the first period of every day is quiet (under half the reference traffic).
    java.util.SplittableRandom random = new java.util.SplittableRandom(11);
    long samplesPerPeriod = ShortExcursions.PERIOD.toMinutes() / 5;
    Map<Instant, Double> busy = new HashMap<>();
    Map<Instant, Double> quiet = new HashMap<>();
    flat(500, 0.01)
        .forEach(
            (t, low) ->
                (t.getEpochSecond() / 60 / 5 % 288 < samplesPerPeriod ? quiet : busy).put(t, low));
    for (long p = 0; p < 500 * 4; p++) {
      if (p % 4 != 0) {
        double fall = 0.10 - 0.03 * Math.log(-Math.log(random.nextDouble()));
        long at = p * samplesPerPeriod + random.nextLong(samplesPerPeriod);
        busy.put(T0.plus(SAMPLE.multipliedBy(at)), 0.6 * (1 - Math.min(0.99, fall)));
      }
    }
    NoiseModel m = model(Duration.ofDays(500));
    Duration two = Duration.ofMinutes(2);
    Duration fiveYears = Duration.ofDays(5 * 365);
    double fit = ShortExcursions.of(two, busy, Map.of(), m, 0.9, fiveYears).depth();
    // Each quiet period's windows, counted, go 12 % under the level: about a busy period's usual
    // deepest (the night's noise, at the line's). As draws of the fit they would narrow its spread
    // and make the record shallower; they are not, so the record is the busy hours' alone.
    quiet.replaceAll((t, low) -> 0.6 * 0.88);
    assertThat(ShortExcursions.of(two, busy, quiet, Map.of(), m, 0.9, fiveYears).depth())
        .isEqualTo(fit);
    Map<Instant, Double> asDraws = new HashMap<>(busy);
    asDraws.putAll(quiet);
    assertThat(ShortExcursions.of(two, asDraws, Map.of(), m, 0.9, fiveYears).depth())
        .isGreaterThan(fit + 0.02);
    // A night excursion deeper than the fit sets the record: the deepest seen.
    Instant night = T0.plus(Duration.ofDays(40)).plus(SAMPLE.multipliedBy(20));
    quiet.put(night, 0.6 * (1 - 0.45));
    assertThat(ShortExcursions.of(two, busy, quiet, Map.of(), m, 0.9, fiveYears).depth())
        .isCloseTo(-0.45, within(1e-9));
    // Unless it is in an incident: a run of blocks under the backstop's line (20 % under the level
    // here) for an hour.
    Map<Instant, Double> blocks = new HashMap<>();
    for (int i = -6; i <= 6; i++) {
      blocks.put(night.plus(SAMPLE.multipliedBy(i)), 0.3);
    }
    assertThat(ShortExcursions.of(two, busy, quiet, blocks, m, 0.2, fiveYears).depth())
        .isEqualTo(fit);
    // Quiet windows alone make no record: no period counts.
    assertThat(ShortExcursions.of(two, Map.of(), quiet, Map.of(), m, 0.9, fiveYears)).isNull();
  }

  @Test
  void aQuietWindowCountsRaisedByItsNoiseBeyondTheLines() {
    // Binomial windows at p = 0.6 (φ = 1): the half line N = 2,400 trials, a quiet window 600.
    // With a 2-minute length in a 2,000-minute interval, z is the 1-in-1,000 quantile, and the
    // exact 1-in-1,000 low of the quiet window, counted, is the line's within 0.4 points; left
    // uncounted, it goes twice as far under the level.
    NoiseModel m = new NoiseModel(null, 0.6, 1.0, 0, 0, 1200, Duration.ofDays(7), 2016, T0);
    Duration two = Duration.ofMinutes(2);
    double c = ShortExcursions.quietNoise(m, two, Duration.ofMinutes(2000));
    assertThat(c).isCloseTo(3.0902 * Math.sqrt(0.24), within(1e-3));
    double atLine =
        new org.apache.commons.math3.distribution.BinomialDistribution(2400, 0.6)
                .inverseCumulativeProbability(0.001)
            / 2400.0;
    double low =
        new org.apache.commons.math3.distribution.BinomialDistribution(600, 0.6)
                .inverseCumulativeProbability(0.001)
            / 600.0;
    assertThat(ShortExcursions.counted(low, 600, c, 2400)).isCloseTo(atLine, within(0.004));
    assertThat(0.6 - low).isGreaterThan(1.8 * (0.6 - atLine));
    // At or above the line a window counts as it is.
    assertThat(ShortExcursions.counted(0.5, 2400, c, 2400)).isEqualTo(0.5);
    assertThat(ShortExcursions.counted(0.5, 9600, c, 2400)).isEqualTo(0.5);
    // z by the interval: 3.91 for 2 minutes in 30 days, 3.20 for 30 minutes.
    double unit = Math.sqrt(0.24);
    assertThat(ShortExcursions.quietNoise(m, two, Duration.ofDays(30)) / unit)
        .isCloseTo(3.91, within(0.01));
    assertThat(ShortExcursions.quietNoise(m, Duration.ofMinutes(30), Duration.ofDays(30)) / unit)
        .isCloseTo(3.20, within(0.01));
  }

  @Test
  void lengthsAreWholeStepsAndWindowsNeedHalfTheReferenceTraffic() {
    assertThat(ShortExcursions.lengths(Duration.ofSeconds(30))).isEqualTo(ShortExcursions.LENGTHS);
    assertThat(ShortExcursions.lengths(Duration.ofMinutes(5)))
        .containsExactly(
            Duration.ofMinutes(5),
            Duration.ofMinutes(10),
            Duration.ofMinutes(20),
            Duration.ofMinutes(30),
            Duration.ofMinutes(60));
    assertThat(ShortExcursions.lengths(Duration.ofMinutes(2)))
        .containsExactly(
            Duration.ofMinutes(2),
            Duration.ofMinutes(10),
            Duration.ofMinutes(20),
            Duration.ofMinutes(30),
            Duration.ofMinutes(60));
    // A record of clusters alone (30 minutes of 3-minute steps, 20 of 4-minute ones) is none.
    assertThat(ShortExcursions.lengths(Duration.ofMinutes(3))).isEmpty();
    assertThat(ShortExcursions.lengths(Duration.ofMinutes(4))).isEmpty();
    // 1,200 trials a step at the reference: a 2-minute window of 30-s steps needs 2,400.
    assertThat(
            ShortExcursions.minTrials(
                model(Duration.ofDays(7)), Duration.ofMinutes(2), Duration.ofSeconds(30)))
        .isEqualTo(2400);
  }
}
