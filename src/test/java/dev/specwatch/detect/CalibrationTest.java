package dev.specwatch.detect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CalibrationTest {
  /** Mean run length of a Gaussian LLR-CUSUM with standardized shift delta and mean {@code mu}. */
  private static double simulatedRunLength(double delta, double mu, double h, int runs, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long total = 0;
    for (int r = 0; r < runs; r++) {
      double s = 0;
      long n = 0;
      do {
        double z = mu + gaussian(random);
        // LLR of N(delta, 1) against N(0, 1) for observation z.
        s = Math.max(0, s + delta * (z - delta / 2));
        n++;
      } while (s < h);
      total += n;
    }
    return (double) total / runs;
  }

  static double gaussian(SplittableRandom random) {
    // Box-Muller: SplittableRandom has no nextGaussian on Java 17.
    double u = random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
  }

  @Test
  void thresholdInvertsTheArlApproximation() {
    for (double info : new double[] {0.02, 0.5, 2}) {
      for (double arl : new double[] {100, 1e4, 1e6}) {
        double h = Calibration.threshold(arl, info);
        assertThat(Calibration.arl0(h, info)).isCloseTo(arl, within(arl * 1e-6));
      }
    }
    // Where the one-step bound takes over, the approximation's ARL is above the design.
    assertThat(Calibration.arl0(Calibration.threshold(1e4, 8), 8)).isGreaterThan(1e4);
  }

  @Test
  void knownValuesOfSiegmundsApproximation() {
    // Δ = 1 (I = 0.5), h = 5: b = 6.166, ARL0 = (e^b - b - 1) / 0.5.
    assertThat(Calibration.arl0(5, 0.5)).isCloseTo(2 * (Math.exp(6.166) - 7.166), within(1e-6));
    // A larger threshold never lowers the ARL.
    assertThat(Calibration.arl0(6, 0.5)).isGreaterThan(Calibration.arl0(5, 0.5));
    // More information per step: each step's LLR swings more, so the same ARL needs a higher
    // threshold, yet a shift is found in fewer steps.
    assertThat(Calibration.threshold(1e4, 2)).isGreaterThan(Calibration.threshold(1e4, 0.1));
    assertThat(Calibration.arl1(Calibration.threshold(1e4, 2), 2))
        .isLessThan(Calibration.arl1(Calibration.threshold(1e4, 0.1), 0.1));
  }

  @Test
  void inControlRunLengthBySeededSimulationMatchesTheDesign() {
    for (double delta : new double[] {0.5, 1.0, 2.0}) {
      double info = delta * delta / 2;
      double h = Calibration.threshold(500, info);
      double arl = simulatedRunLength(delta, 0, h, 3000, 42);
      assertThat(arl).as("delta %s, h %.3f", delta, h).isCloseTo(500, within(500 * 0.12));
    }
  }

  @Test
  void delayUnderTheDesignedShiftMatchesTheApproximation() {
    double delta = 1.0;
    double info = 0.5;
    double h = Calibration.threshold(1e4, info);
    double arl1 = simulatedRunLength(delta, delta, h, 4000, 7);
    assertThat(arl1).isCloseTo(Calibration.arl1(h, info), within(Calibration.arl1(h, info) * 0.1));
  }

  @Test
  void normalQuantileMatchesKnownValues() {
    assertThat(Calibration.normalQuantile(0.5)).isCloseTo(0, within(1e-9));
    assertThat(Calibration.normalQuantile(0.975)).isCloseTo(1.959964, within(1e-6));
    assertThat(Calibration.normalQuantile(0.001)).isCloseTo(-3.090232, within(1e-6));
    assertThat(Calibration.normalQuantile(1 - 1e-7)).isCloseTo(5.199338, within(1e-5));
  }

  @Test
  void veryInformativeStepsStillGetAThresholdThatHoldsTheDesign() {
    // Δ = 14: the CUSUM is a one-step test: even h = 0 (alarm on any positive LLR, the
    // statistic must exceed h) has a false alarm per step of Φ(-7).
    double info = 100;
    double h = Calibration.threshold(64_800, info);
    assertThat(h).isGreaterThanOrEqualTo(0);
    double oneStepAlarm = 1 - normalCdf((h + info) / Math.sqrt(2 * info));
    assertThat(1 / oneStepAlarm).isGreaterThanOrEqualTo(64_800 * 0.99);
    // And by simulation: 200,000 healthy steps, no alarm (the statistic must exceed h).
    SplittableRandom random = new SplittableRandom(3);
    double delta = Math.sqrt(2 * info);
    double stat = 0;
    int alarms = 0;
    for (int i = 0; i < 200_000; i++) {
      stat = Math.max(0, stat + delta * (gaussian(random) - delta / 2));
      if (stat > h) {
        alarms++;
        stat = 0;
      }
    }
    assertThat(alarms).isZero();
  }

  /** Φ(x) by numerical integration; good to 1e-7 for the tails used here. */
  private static double normalCdf(double x) {
    double sum = 0;
    double dx = 1e-4;
    for (double t = x; t < 12; t += dx) {
      sum += Math.exp(-t * t / 2) * dx;
    }
    return 1 - sum / Math.sqrt(2 * Math.PI);
  }
}
