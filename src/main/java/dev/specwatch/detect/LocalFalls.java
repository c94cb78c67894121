package dev.specwatch.detect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the learned history says of falls from the hour before, as the test of a sudden drop sees
 * them ({@link LocalReference}; docs/DETECTION.md, "Sudden drops" and "The model in doubt"): the
 * long-run wander of blocks against the recent past, and how much heavier the history's falls are
 * than that wander allows.
 *
 * <p>Each block's deviation d is its proportion minus its learned level times the exponentially
 * weighted ratio observed / learned of the blocks before it (time constant {@link
 * LocalReference#MEMORY}, restarted at every gap). The <b>local wander</b> is the mean of d² beyond
 * the binomial parts of both, times the steps a block spans. The <b>widening</b> is a graded doubt:
 * each d divided by the standard deviation the model gives it (binomial parts plus the local wander
 * per block) should be about standard normal; the mean of the lowest {@link #TAIL} of them (the
 * expected shortfall of the falls) over the standard normal's at the same share is how many times
 * wider than the model the history's falls are, and at least 1. A jump of the prompt mix (a batch
 * job starting, a client arriving) is a fall the variance averages away and the tail keeps.
 *
 * @param wander the local wander per step, or null with fewer than {@link NoiseFit#MIN_AGGREGATES}
 *     blocks
 * @param widening the falls' expected shortfall over the model's, at least 1; 1 with fewer than
 *     {@link #MIN_TAIL_BLOCKS} blocks
 * @param blocks the blocks measured
 */
public record LocalFalls(Double wander, double widening, int blocks) {
  /** The share of the lowest standardized deviations whose mean measures the tail. */
  static final double TAIL = 0.02;

  /** The standard normal's expected shortfall at {@link #TAIL}: φ(z) / α at z = Φ⁻¹(1 − α). */
  static final double NORMAL_SHORTFALL = 2.4209;

  /** Fewer blocks than this (a day of 15-minute blocks) say too little of a 2 % tail. */
  static final int MIN_TAIL_BLOCKS = 96;

  static LocalFalls of(
      List<StepSample> blocks,
      long spacing,
      List<Double> profile,
      double overall,
      double phi,
      double cut,
      int blockSteps) {
    double decay = Math.exp(-(double) spacing / LocalReference.MEMORY.toMillis());
    double successes = 0;
    double expected = 0;
    double binomial = 0; // Σ w² L(1 − L) n: the reference's sampling variance, before scaling
    Instant last = null;
    List<double[]> measured = new ArrayList<>(); // {d, its sampling variance}
    for (StepSample b : blocks) {
      if (last != null && Duration.between(last, b.at()).toMillis() != spacing) {
        successes = 0;
        expected = 0;
        binomial = 0;
      }
      last = b.at();
      double level = NoiseFit.level(profile, overall, b.at());
      double p = b.blockSuccesses() / b.blockTrials();
      if (Math.abs(p - level) > cut) {
        continue;
      }
      if (expected > 0) {
        double ratio = successes / expected;
        double sampling =
            phi * level * (1 - level) / b.blockTrials()
                + level * level * phi * binomial / (expected * expected);
        measured.add(new double[] {p - level * ratio, sampling});
      }
      successes = successes * decay + b.blockSuccesses();
      expected = expected * decay + level * b.blockTrials();
      binomial = binomial * decay * decay + level * (1 - level) * b.blockTrials();
    }
    int n = measured.size();
    if (n < NoiseFit.MIN_AGGREGATES) {
      return new LocalFalls(null, 1, n);
    }
    double extra = 0;
    for (double[] m : measured) {
      extra += m[0] * m[0] - m[1];
    }
    double wander = Math.max(0, blockSteps * extra / n);
    return new LocalFalls(wander, widening(measured, wander / blockSteps), n);
  }

  /**
   * The same widening of the blocks' deviations from the learned level (not from the hour before):
   * how much heavier the history's excursions below its normal are than the blocks' wander allows
   * (bursts of a client, batch jobs), at least 1. The main test's wander is widened by its square
   * (docs/DETECTION.md, "The model in doubt").
   *
   * @param perBlock the blocks' wander per block (the model's long-run wander over the steps a
   *     block spans)
   */
  static double againstLevel(
      List<StepSample> blocks,
      List<Double> profile,
      double overall,
      double phi,
      double cut,
      double perBlock) {
    List<double[]> measured = new ArrayList<>();
    for (StepSample b : blocks) {
      double level = NoiseFit.level(profile, overall, b.at());
      double d = b.blockSuccesses() / b.blockTrials() - level;
      if (Math.abs(d) <= cut) {
        measured.add(new double[] {d, phi * level * (1 - level) / b.blockTrials()});
      }
    }
    return widening(measured, perBlock);
  }

  /**
   * The expected shortfall of the standardized deviations at {@link #TAIL} over the standard
   * normal's, at least 1; 1 with fewer than {@link #MIN_TAIL_BLOCKS} of them.
   *
   * @param measured each block's {deviation, sampling variance}
   * @param perBlock the wander's variance of one block
   */
  static double widening(List<double[]> measured, double perBlock) {
    int n = measured.size();
    if (n < MIN_TAIL_BLOCKS) {
      return 1;
    }
    double[] z = new double[n];
    for (int i = 0; i < n; i++) {
      double[] m = measured.get(i);
      z[i] = m[0] / Math.sqrt(Math.max(m[1] + perBlock, 1e-18));
    }
    Arrays.sort(z);
    int k = Math.max(1, (int) Math.round(TAIL * n));
    double sum = 0;
    for (int i = 0; i < k; i++) {
      sum += z[i];
    }
    return Math.max(1, -sum / k / NORMAL_SHORTFALL);
  }
}
