package dev.specwatch.advisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.specwatch.testing.SpeedupFamilies;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SpeedupByLoadTest {
  /** Per-request tokens/s by bucket (1, 2–3, 4–7, 8–15): the speculative and the baseline side. */
  private static final double[] SPEC = {90, 70, 48, 30};

  private static final double[] BASE = {45, 42, 40, 36};

  @Test
  void bucketsArePowersOfTwoOfTheRoundedMeanLoad() {
    assertThat(SpeedupByLoad.bucketOf(0.4)).isEqualTo(-1);
    assertThat(SpeedupByLoad.bucketOf(1)).isZero();
    assertThat(SpeedupByLoad.bucketOf(1.4)).isZero();
    assertThat(SpeedupByLoad.bucketOf(2)).isEqualTo(1);
    assertThat(SpeedupByLoad.bucketOf(3.4)).isEqualTo(1);
    assertThat(SpeedupByLoad.bucketOf(3.6)).isEqualTo(2);
    assertThat(SpeedupByLoad.bucketOf(7)).isEqualTo(2);
    assertThat(SpeedupByLoad.bucketOf(8)).isEqualTo(3);
    assertThat(SpeedupByLoad.bucketOf(100)).isEqualTo(6);
  }

  /**
   * A side's steps: load wandering over 1..15 running requests, tokens/s = running × V(bucket) × (1
   * + ε) with ε an AR(1) noise (ρ = 0.8 a step, 12 % sd): correlated, as traffic is.
   */
  private static List<SpeedupByLoad.Step> side(double[] speeds, int steps, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<SpeedupByLoad.Step> out = new ArrayList<>();
    double load = 1 + random.nextDouble() * 14;
    double noise = 0;
    for (int i = 0; i < steps; i++) {
      load = Math.max(1, Math.min(15, load + random.nextGaussian() * 0.6));
      noise = 0.8 * noise + Math.sqrt(1 - 0.64) * 0.12 * random.nextGaussian();
      double running = load;
      int b = SpeedupByLoad.bucketOf(running);
      out.add(new SpeedupByLoad.Step(running * speeds[b] * (1 + noise), running));
    }
    return out;
  }

  @Test
  void recoversTheSpeedUpOfEveryBucketAndItsIntervalCoversTheTruthAboutNineteenTimesInTwenty() {
    int covered = 0;
    int intervals = 0;
    int close = 0;
    for (long seed = 1; seed <= 200; seed++) {
      SpeedupByLoad.Result r =
          SpeedupByLoad.measure(side(SPEC, 2880, seed), side(BASE, 2880, 1000 + seed), 60);
      for (SpeedupByLoad.Bucket b : r.byLoad()) {
        if (b.speedup() == null) {
          continue;
        }
        int index = SpeedupByLoad.bucketOf(b.runningMin());
        double truth = SPEC[index] / BASE[index];
        intervals++;
        if (b.low() <= truth && truth <= b.high()) {
          covered++;
        }
        if (Math.abs(b.speedup() / truth - 1) < 0.05) {
          close++;
        }
      }
    }
    double coverage = covered / (double) intervals;
    assertThat(intervals).isGreaterThan(400);
    // Nominal 95 %; the AR(1) correction is approximate, so a band around it.
    assertThat(coverage).as("coverage of %d intervals", intervals).isBetween(0.90, 0.985);
    // Two days of one-minute steps per side, wandering over the loads: within 5 % nearly always.
    assertThat(close / (double) intervals).isGreaterThan(0.95);
  }

  /**
   * Off the estimator's model (issue 40): a slow drift (AR(1), ρ = 0.995 a step, 6 % sd) over a
   * speed that changes smoothly with the batch, two days a side, 20 seeds. The lag-1 interval
   * shipped before covered the truth in 49 % of buckets; make speedup-bench has the other families.
   */
  @Test
  void theIntervalCoversTheTruthUnderSlowDriftItWasNotDesignedOn() {
    SpeedupFamilies.Family drift = SpeedupFamilies.ALL.get(0);
    assertThat(drift.name()).isEqualTo("drift");
    int intervals = 0;
    int covered = 0;
    for (long seed = 1; seed <= 20; seed++) {
      List<SpeedupFamilies.TruthStep> spec = drift.side(true, 2880, seed);
      List<SpeedupFamilies.TruthStep> base = drift.side(false, 2880, 10_000 + seed);
      SpeedupByLoad.Result r =
          SpeedupByLoad.measure(SpeedupFamilies.steps(spec), SpeedupFamilies.steps(base), 60);
      for (SpeedupByLoad.Bucket b : r.byLoad()) {
        if (b.speedup() != null) {
          double truth = SpeedupFamilies.truth(spec, base, SpeedupByLoad.bucketOf(b.runningMin()));
          intervals++;
          covered += b.low() <= truth && truth <= b.high() ? 1 : 0;
        }
      }
    }
    assertThat(intervals).isGreaterThan(100);
    assertThat(covered / (double) intervals).as("coverage of %d", intervals).isGreaterThan(0.90);
  }

  @Test
  void withoutTheAutocorrelationCorrectionTheIntervalWouldBeAboutThreeTimesTooNarrow() {
    // AR(1) noise at ρ = 0.8 a step: the variance of a mean is (1 + ρ)/(1 − ρ) = 9 times the
    // independent steps' one, so the standard error is 3 times theirs. The batch-means error finds
    // that from the data; counting every step as independent would not.
    List<SpeedupByLoad.Step> steps = side(SPEC, 20_000, 7);
    SpeedupByLoad.Speed correlated = SpeedupByLoad.speed(steps, 2);
    double sumX = 0;
    double sumE2 = 0;
    int n = 0;
    for (SpeedupByLoad.Step s : steps) {
      if (SpeedupByLoad.bucketOf(s.running()) == 2) {
        double e = s.tokensPerSecond() - correlated.perRequest() * s.running();
        sumE2 += e * e;
        sumX += s.running();
        n++;
      }
    }
    double independent = Math.sqrt(sumE2 / (n - 1) / n) / (sumX / n);
    assertThat(correlated.standardError() / independent)
        .as("how much wider than the independent steps' error")
        .isBetween(2.2, 3.8);
    assertThat(correlated.effective()).isBetween(n / 16.0, n / 5.0);
    assertThat(correlated.batches()).isEqualTo(SpeedupByLoad.BATCHES);
    assertThat(correlated.perRequest()).isCloseTo(SPEC[2], within(SPEC[2] * 0.05));
  }

  @Test
  void studentsTAtTheWelchSatterthwaiteDegreesOfFreedom() {
    // Known quantiles: t(9) 2.262, t(2) 4.303, t(∞) → 1.960.
    assertThat(SpeedupByLoad.t95(9)).isCloseTo(2.262, within(0.001));
    assertThat(SpeedupByLoad.t95(2)).isCloseTo(4.303, within(0.001));
    assertThat(SpeedupByLoad.t95(1e6)).isCloseTo(1.960, within(0.001));
    // Equal variances and degrees of freedom: the sum has twice the degrees of freedom.
    assertThat(SpeedupByLoad.welch(1, 9, 1, 9)).isCloseTo(18, within(1e-9));
    // One side dominating: its own degrees of freedom.
    assertThat(SpeedupByLoad.welch(1, 9, 1e-9, 2)).isCloseTo(9, within(1e-3));
    assertThat(SpeedupByLoad.welch(0, 9, 0, 4)).isEqualTo(9);
  }

  @Test
  void paysUpToTheLargestLoadWhoseSpeedUpIsAboveOne() {
    SpeedupByLoad.Result r = SpeedupByLoad.measure(side(SPEC, 4000, 11), side(BASE, 4000, 12), 60);
    assertThat(r.byLoad()).extracting(SpeedupByLoad.Bucket::runningMin).containsExactly(1, 2, 4, 8);
    assertThat(r.byLoad())
        .extracting(SpeedupByLoad.Bucket::verdict)
        .containsExactly("pays", "pays", "pays", "costs");
    assertThat(r.paysUpToRunning()).isEqualTo(7);
    SpeedupByLoad.Bucket first = r.byLoad().get(0);
    assertThat(first.runningMax()).isEqualTo(1);
    assertThat(first.hours()).isGreaterThan(0);
    assertThat(first.low()).isLessThan(first.speedup());
    assertThat(first.high()).isGreaterThan(first.speedup());
  }

  /**
   * Issue 40's overclaim: a bucket whose point estimate is just above 1 but whose interval holds 1
   * (breaks even) is not a load where speculation pays, and is said as break-even. Before, "pays up
   * to 127" came from such a bucket (1.008, 0.994–1.022, truth 0.995).
   */
  @Test
  void aBucketAboveOneOnlyByItsPointEstimateDoesNotCountAsPaying() {
    List<SpeedupByLoad.Step> spec = new ArrayList<>();
    List<SpeedupByLoad.Step> base = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      spec.add(new SpeedupByLoad.Step(90 * (1 + 0.01 * (i % 7)), 1));
      base.add(new SpeedupByLoad.Step(45 * (1 + 0.01 * (i % 5)), 1));
    }
    // At 100 running: 30 % noise a step, centred so the two sides read exactly 1.008 and 1.
    double[] specNoise = centred(300, 5);
    double[] baseNoise = centred(300, 6);
    for (int i = 0; i < 300; i++) {
      spec.add(new SpeedupByLoad.Step(100 * 20 * (1.008 + 0.3 * specNoise[i]), 100));
      base.add(new SpeedupByLoad.Step(100 * 20 * (1 + 0.3 * baseNoise[i]), 100));
    }
    SpeedupByLoad.Result r = SpeedupByLoad.measure(spec, base, 60);
    SpeedupByLoad.Bucket heavy = r.byLoad().get(r.byLoad().size() - 1);
    assertThat(heavy.runningMax()).isEqualTo(127);
    assertThat(heavy.speedup()).isGreaterThan(1.0);
    assertThat(heavy.verdict()).isEqualTo("breaks_even");
    assertThat(r.paysUpToRunning()).as("before: 127").isEqualTo(1);
    assertThat(r.breaksEvenClause())
        .isEqualTo("; break-even at 64–127 running (the 95 % interval holds 1×)");
  }

  @Test
  void aBucketThatRanInOneStretchIsCutIntoRunsOfItsOwnSteps() {
    // A day of one running request, and 4–7 only in its last two hours: 120 steps in one or two of
    // the window's tenths, too few batches; the bucket's own steps are cut into ten runs instead.
    List<SpeedupByLoad.Step> steps = new ArrayList<>();
    double[] noise = centred(1440, 9);
    for (int i = 0; i < 1440; i++) {
      double running = i < 1320 ? 1 : 5;
      steps.add(new SpeedupByLoad.Step(running * 90 * (1 + 0.05 * noise[i]), running));
    }
    SpeedupByLoad.Speed late = SpeedupByLoad.speed(steps, 2);
    assertThat(late.steps()).isEqualTo(120);
    assertThat(late.batches()).isEqualTo(SpeedupByLoad.BATCHES);
    assertThat(late.standardError()).isPositive();
    assertThat(SpeedupByLoad.speed(steps, 0).batches()).isEqualTo(SpeedupByLoad.BATCHES);
    // Spread over three tenths of the window: the window's batches, three of them.
    List<SpeedupByLoad.Step> three = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      double running = i % 100 < 40 && i < 300 ? 5 : 1;
      three.add(new SpeedupByLoad.Step(running * 90 * (1 + 0.05 * noise[i]), running));
    }
    assertThat(SpeedupByLoad.speed(three, 2).batches()).isEqualTo(3);
  }

  /** Gaussian noise of mean exactly 0. */
  private static double[] centred(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] x = new double[n];
    double mean = 0;
    for (int i = 0; i < n; i++) {
      x[i] = random.nextGaussian();
      mean += x[i] / n;
    }
    for (int i = 0; i < n; i++) {
      x[i] -= mean;
    }
    return x;
  }

  @Test
  void aBucketWithTooLittleDataOnEitherSideSaysSoInsteadOfANumber() {
    List<SpeedupByLoad.Step> spec = new ArrayList<>();
    List<SpeedupByLoad.Step> base = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      spec.add(new SpeedupByLoad.Step(90 * (1 + 0.01 * (i % 7)), 1));
      base.add(new SpeedupByLoad.Step(45 * (1 + 0.01 * (i % 5)), 1));
    }
    for (int i = 0; i < 10; i++) {
      spec.add(new SpeedupByLoad.Step(4 * 48, 4, i == 0));
    }
    for (int i = 0; i < 0; i++) {
      base.add(new SpeedupByLoad.Step(4 * 40, 4));
    }
    SpeedupByLoad.Result r = SpeedupByLoad.measure(spec, base, 60);
    assertThat(r.byLoad()).hasSize(2);
    SpeedupByLoad.Bucket heavy = r.byLoad().get(1);
    assertThat(heavy.speedup()).isNull();
    assertThat(heavy.verdict()).isEqualTo("too_little_data");
    assertThat(heavy.note())
        .contains("speculative: 10 steps (at least 30)")
        .contains("baseline: 0 steps");
    assertThat(r.paysUpToRunning()).isEqualTo(1);
    // Idle steps and garbage (NaN, negative) are left out, not counted as slow.
    List<SpeedupByLoad.Step> withIdle = new ArrayList<>(spec.subList(0, 100));
    withIdle.add(new SpeedupByLoad.Step(0, 0));
    withIdle.add(new SpeedupByLoad.Step(Double.NaN, 1));
    withIdle.add(new SpeedupByLoad.Step(-3, 1));
    assertThat(SpeedupByLoad.speed(withIdle, 0).steps()).isEqualTo(100);
  }
}
