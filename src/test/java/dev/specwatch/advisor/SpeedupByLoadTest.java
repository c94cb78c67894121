package dev.specwatch.advisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

  @Test
  void withoutTheAutocorrelationCorrectionTheIntervalWouldBeTooNarrow() {
    // The same noise, independent between steps, gives about the same point estimate but an
    // interval narrower by about √((1 + ρ)/(1 − ρ)) = 3 for ρ = 0.8: the correction is doing work.
    SpeedupByLoad.Speed correlated = SpeedupByLoad.speed(side(SPEC, 5000, 7), 2);
    assertThat(correlated.effective()).isLessThan(correlated.steps() / 4.0);
    assertThat(correlated.perRequest()).isCloseTo(SPEC[2], within(SPEC[2] * 0.05));
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
    for (int i = 0; i < 300; i++) {
      spec.add(new SpeedupByLoad.Step(100 * 20 * (1.008 + 0.3 * ((i % 2) * 2 - 1)), 100));
      base.add(new SpeedupByLoad.Step(100 * 20 * (1 + 0.3 * ((i % 3) - 1)), 100));
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
