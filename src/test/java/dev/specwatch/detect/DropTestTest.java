package dev.specwatch.detect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

class DropTestTest {
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
  private static final NoiseModel MODEL =
      new NoiseModel(null, 0.6, 2.0, 0.0001, 0.0001, 900, Duration.ofDays(7), 2016, T0);

  /** One step's successes with the model's variance around {@code level}. */
  private static double successes(SplittableRandom random, double level, double trials) {
    double sd = Math.sqrt(MODEL.variance(level, trials));
    double p = level + sd * CalibrationTest.gaussian(random);
    return Math.round(Math.min(Math.max(p, 0), 1) * trials);
  }

  private static final DropTest CHANGE =
      new DropTest(List.of(0.1, 0.2, 0.4), 2000, DropTest.Recovery.TO_REFERENCE);

  private static final List<Double> DROP_H = CHANGE.dropThresholds(MODEL, 0.6);
  private static final List<Double> RECOVER_H = CHANGE.recoverThresholds(MODEL, 0.6, 0.6);

  /** {@link #CHANGE}'s step {@code n} (30 s each from T0) of 900 trials on MODEL at 0.6. */
  private static DropTest.State step(DropTest.State s, long n, double successes) {
    return CHANGE.step(
        s, MODEL, 0.6, 0.6, DROP_H, RECOVER_H, T0.plusSeconds(30 * n), successes, 900);
  }

  /**
   * Mean steps to a false alarm over {@code runs} healthy runs (at most 200,000 steps each), the
   * successes of run {@code r}'s steps drawn from {@code healthy.apply(r)}.
   */
  private static double arl(int runs, IntFunction<DoubleSupplier> healthy) {
    long steps = 0;
    for (int r = 0; r < runs; r++) {
      DoubleSupplier successes = healthy.apply(r);
      DropTest.State s = DropTest.State.initial(3);
      long n = 0;
      while (!s.alarmed() && n < 200_000) {
        n++;
        s = step(s, n, successes.getAsDouble());
      }
      steps += n;
    }
    return (double) steps / runs;
  }

  @Test
  void healthyTrafficAlarmsNoMoreOftenThanDesigned() {
    SplittableRandom random = new SplittableRandom(11);
    double arl = arl(300, r -> () -> successes(random, 0.6, 900));
    // The union bound over three tests makes the bank conservative: at least the design. The
    // step cap (no single step alarms) makes it more so: 3767 steps without it, 7322 with it
    // (equal shares of the budget); 4911 with half of the budget on the smallest shift.
    assertThat(arl).isGreaterThan(2000 * 0.85).isLessThan(2000 * 4.0);
  }

  @Test
  void findsADropEstimatesItAndItsStartAndResolvesWhenTheLevelIsBack() {
    SplittableRandom random = new SplittableRandom(3);
    DropTest.State s = DropTest.State.initial(3);
    Instant change = T0.plusSeconds(30 * 200);
    int step = 0;
    Instant alarmAt = null;
    while (step < 2000 && alarmAt == null) {
      step++;
      Instant at = T0.plusSeconds(30L * step);
      double level = at.isAfter(change) ? 0.6 * 0.85 : 0.6;
      s = step(s, step, successes(random, level, 900));
      if (s.alarmed()) {
        alarmAt = at;
      }
    }
    assertThat(alarmAt).as("a 15 %% drop is found").isNotNull().isAfter(change);
    assertThat(Duration.between(change, alarmAt)).isLessThan(Duration.ofMinutes(15));
    assertThat(Duration.between(s.since(), change).abs()).isLessThan(Duration.ofMinutes(5));
    // Ten more minutes at the dropped level keep it alarmed; the estimate converges to -15 %.
    for (int i = 0; i < 20; i++) {
      step++;
      s = step(s, step, successes(random, 0.51, 900));
    }
    assertThat(s.alarmed()).isTrue();
    assertThat(1 - s.observed() / s.expected()).isCloseTo(0.15, within(0.03));
    int recovered = 0;
    while (s.alarmed() && recovered < 200) {
      step++;
      recovered++;
      s = step(s, step, successes(random, 0.6, 900));
    }
    assertThat(s.alarmed()).as("back to normal").isFalse();
    assertThat(recovered).isLessThan(60);
    assertThat(s).isEqualTo(DropTest.State.initial(3));
  }

  /**
   * Off-model noise (issue 40, part 5): steps whose deviation has the model's variance but not its
   * shape. {@code kind} 0: Student-t with 3 degrees of freedom (heavy tails, unit variance); 1: an
   * AR(1) with correlation 0.5 from step to step (the same marginal variance, but sums of steps
   * vary three times as much as the model assumes).
   */
  private static final class OffModel {
    private final SplittableRandom random;
    private final int kind;
    private double x;

    OffModel(long seed, int kind) {
      this.random = new SplittableRandom(seed);
      this.kind = kind;
      this.x = CalibrationTest.gaussian(random);
    }

    double successes(double level, double trials) {
      double z;
      if (kind == 0) {
        double chi = 0;
        for (int i = 0; i < 3; i++) {
          double g = CalibrationTest.gaussian(random);
          chi += g * g;
        }
        z = CalibrationTest.gaussian(random) / Math.sqrt(chi / 3) / Math.sqrt(3.0);
      } else {
        x = 0.5 * x + Math.sqrt(1 - 0.25) * CalibrationTest.gaussian(random);
        z = x;
      }
      double p = level + Math.sqrt(MODEL.variance(level, trials)) * z;
      return Math.round(Math.min(Math.max(p, 0), 1) * trials);
    }
  }

  /** Mean steps to a false alarm over {@code runs} healthy runs of off-model noise. */
  private static double offModelArl(int kind, int runs) {
    return arl(
        runs,
        r -> {
          OffModel noise = new OffModel(100 + r, kind);
          return () -> noise.successes(0.6, 900);
        });
  }

  /** Steps from a 15 % drop to the alarm under off-model noise. */
  private static int offModelDelay(int kind, long seed) {
    OffModel noise = new OffModel(seed, kind);
    DropTest.State s = DropTest.State.initial(3);
    for (int step = 1; step <= 2000; step++) {
      s = step(s, step, noise.successes(0.6 * 0.85, 900));
      if (s.alarmed()) {
        return step;
      }
    }
    return Integer.MAX_VALUE;
  }

  /**
   * The test's design holds for the model's noise (above); with the model's variance but not its
   * shape it did not, and this says by how much (docs/DETECTION.md, "Limits"). Heavy-tailed steps
   * alarmed about 8 times as often as designed (mean 247 steps between false alarms, designed 2000)
   * until a step's weight was capped at {@link dev.specwatch.detect.CusumStep#STEP_CAP} of a
   * threshold: one outlier 10 sds low was a whole alarm to the largest shift's statistic; now 2844,
   * the design met. Steps correlated at 0.5 still alarm about 5.5 times as often (366): the cap
   * does nothing for a run of moderately low steps. The learner guards against that with its
   * measured wander over blocks.
   */
  @Test
  void offModelNoiseMeetsTheDesignWithHeavyTailsButNotWithCorrelatedSteps() {
    assertThat(offModelArl(0, 300)).as("heavy tails").isBetween(2000 * 0.85, 2000 * 4.0);
    assertThat(offModelArl(1, 300)).as("correlated steps").isBetween(2000 / 12.0, 2000 / 3.0);
  }

  @Test
  void aFifteenPercentDropIsFoundAsFastUnderOffModelNoise() {
    for (int kind = 0; kind < 2; kind++) {
      for (int i = 0; i < 20; i++) {
        assertThat(offModelDelay(kind, 500 + i)).as("kind %d seed %d", kind, i).isLessThan(30);
      }
    }
  }

  @Test
  void stepsWithoutTrialsChangeNothing() {
    DropTest.State s =
        new DropTest.State(List.of(1.0, 0.5, 0.0), List.of(0.0), false, T0, null, 10, 20, 12, T0);
    assertThat(CHANGE.step(s, MODEL, 0.6, 0.6, List.of(9.0, 9.0, 9.0), List.of(9.0), T0, 0, 0))
        .isSameAs(s);
  }

  @Test
  void aThresholdTestFiresBelowItAndResolvesAboveTheClearLevel() {
    DropTest threshold = new DropTest(List.of(0.05, 0.15, 0.4), 1e5, DropTest.Recovery.ABOVE_CLEAR);
    NoiseModel binomial = NoiseModel.binomial(1, 600);
    List<Double> dropH = threshold.dropThresholds(binomial, 0.3);
    List<Double> recoverH = threshold.recoverThresholds(binomial, 0.3, 0.3);
    DropTest.State s = DropTest.State.initial(3);
    // 0.39 is healthy: nothing accumulates.
    for (int i = 0; i < 100; i++) {
      s = threshold.step(s, binomial, 0.3, 0.3, dropH, recoverH, T0, 0.39 * 600, 600);
    }
    assertThat(s.alarmed()).isFalse();
    assertThat(s.drop()).allSatisfy(v -> assertThat(v).isZero());
    // Halved to 0.195: two 5 s steps of 600 draft tokens are overwhelming evidence.
    s = threshold.step(s, binomial, 0.3, 0.3, dropH, recoverH, T0, 0.195 * 600, 600);
    s = threshold.step(s, binomial, 0.3, 0.3, dropH, recoverH, T0, 0.195 * 600, 600);
    assertThat(s.alarmed()).isTrue();
    s = threshold.step(s, binomial, 0.3, 0.3, dropH, recoverH, T0, 0.39 * 600, 600);
    s = threshold.step(s, binomial, 0.3, 0.3, dropH, recoverH, T0, 0.39 * 600, 600);
    assertThat(s.alarmed()).isFalse();
  }

  @Test
  void anHourWithoutTrafficStartsTheTestOver() {
    DropTest.State s = DropTest.State.initial(3);
    int step = 0;
    while (!s.alarmed() && step < 100) {
      step++;
      s = step(s, step, 0.4 * 900);
    }
    assertThat(s.alarmed()).isTrue();
    Instant last = T0.plusSeconds(30L * step);
    // The night: no traffic for two hours. The first healthy step after it starts afresh.
    DropTest.State morning =
        CHANGE.step(
            s, MODEL, 0.6, 0.6, DROP_H, RECOVER_H, last.plus(Duration.ofHours(2)), 0.6 * 900, 900);
    assertThat(morning.alarmed()).isFalse();
    assertThat(morning.drop()).allSatisfy(v -> assertThat(v).isZero());
    // Within the hour the evidence stands: still alarmed after one healthy step.
    DropTest.State soon =
        CHANGE.step(
            s,
            MODEL,
            0.6,
            0.6,
            DROP_H,
            RECOVER_H,
            last.plus(Duration.ofMinutes(30)),
            0.6 * 900,
            900);
    assertThat(soon.alarmed()).isTrue();
  }

  @Test
  void aReferenceThatTookNoStepForAnHourIsStale() {
    LocalReference l = LocalReference.start(3);
    assertThat(l.stale(T0)).as("nothing in it yet: nothing to be stale").isFalse();
    // A step enters the reference ten minutes after it was seen.
    l =
        l.observe(T0, 600, 1000, 0.6)
            .observe(T0.plus(java.time.Duration.ofMinutes(10)), 600, 1000, 0.6);
    assertThat(l.last()).isEqualTo(T0);
    assertThat(l.stale(T0.plus(java.time.Duration.ofMinutes(60)))).isFalse();
    assertThat(l.stale(T0.plus(java.time.Duration.ofMinutes(61)))).isTrue();
  }

  @Test
  void aStatePersistedByAnotherBankStartsItsStatisticsOverAndKeepsItsAlarm() {
    // A release whose bank had two alternatives left this; CHANGE has three.
    DropTest.State quiet =
        new DropTest.State(List.of(3.0, 2.0), List.of(0.0), false, T0, null, 540, 900, 540, T0);
    DropTest.State next = step(quiet, 1, 0.6 * 900);
    assertThat(next.drop()).hasSize(3).allSatisfy(v -> assertThat(v).isZero());
    assertThat(next.since()).as("a healthy step: no excursion carried over").isNull();

    DropTest.State paged =
        new DropTest.State(List.of(9.0, 9.0), List.of(1.0, 1.0), true, T0, T0, 400, 900, 540, T0);
    DropTest.State still = step(paged, 1, 0.45 * 900);
    assertThat(still.alarmed()).as("the upgrade loses no alert").isTrue();
    assertThat(still.since()).isEqualTo(T0);
    assertThat(still.recover()).hasSize(1);
    assertThat(still.sumTrials()).isEqualTo(1800);
    DropTest.State s = still;
    long n = 1;
    while (s.alarmed() && n < 200) {
      s = step(s, ++n, 0.6 * 900);
    }
    assertThat(s.alarmed()).as("and it recovers as a state of this bank would").isFalse();
  }

  @Test
  void aHeldAlarmKeepsItsExcursionAndItsStatisticsUpToTheirThresholds() {
    DropTest.State alarmed =
        new DropTest.State(List.of(30.0, 12.0, 4.0), List.of(0.0), true, T0, T0, 400, 900, 540, T0);
    DropTest.State held = alarmed.held(List.of(10.0, 11.0, 12.0));
    assertThat(held.alarmed()).isFalse();
    assertThat(held.drop()).containsExactly(10.0, 11.0, 4.0);
    assertThat(held.since()).isEqualTo(T0);
    assertThat(held.sumSuccesses()).isEqualTo(400);
    assertThat(held.sumTrials()).isEqualTo(900);
    assertThat(alarmed.disarmed().drop()).containsExactly(30.0, 12.0, 4.0);
  }

  @Test
  void theBanksFalseAlarmBudgetAddsUpAndHalfOfItIsTheSmallestShifts() {
    for (int n = 1; n <= 5; n++) {
      double rate = 0;
      for (int i = 0; i < n; i++) {
        rate += 1 / DropTest.budget(i, n);
      }
      assertThat(rate).as("a bank of %d", n).isCloseTo(1, within(1e-12));
    }
    assertThat(1 / DropTest.budget(0, 4)).isEqualTo(0.5);
    assertThat(1 / DropTest.budget(3, 4)).isCloseTo(1.0 / 6, within(1e-12));
  }
}
