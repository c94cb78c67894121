package dev.specwatch.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.specwatch.testing.HistoryGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The window bound's calibration, on noise whose answer is known in closed form. */
class WindowBoundTest {
  /** Thirty days at a constant 900 tokens a step, binomial with the bench's overdispersion. */
  static List<WindowBound.Series> binomial(long seed) {
    int steps = WindowBound.DAYS * 2880;
    double p = HeldOutBench.LEVEL;
    double phi = HeldOutBench.BASE.phi();
    SplittableRandom random = new SplittableRandom(seed);
    List<WindowBound.Series> all = new ArrayList<>();
    for (int s = 0; s < WindowBound.SEEDS; s++) {
      long[] tokens = new long[steps];
      long[] accepted = new long[steps];
      double[] level = new double[steps];
      double[] profile = new double[steps];
      for (int k = 0; k < steps; k++) {
        tokens[k] = 900;
        accepted[k] = HistoryGenerator.accepted(900, p, phi, random);
        level[k] = p;
        profile[k] = p;
      }
      all.add(new WindowBound.Series(tokens, accepted, level, profile));
    }
    return all;
  }

  @Test
  void aOneStepLineOnIndependentStepsIsTheNormalQuantileOfOncePerThirtyDays() {
    // One entry per 30 days of 2,880 steps a day: P(z < L) = 1 / 86,400, L = -4.30.
    for (long seed = 1; seed <= 3; seed++) {
      List<WindowBound.Sums> sums = binomial(seed).stream().map(WindowBound.Sums::of).toList();
      assertEquals(-4.30, WindowBound.calibrate(sums, 1, false), 0.25, "true level, seed " + seed);
      assertEquals(-4.30, WindowBound.calibrate(sums, 1, true), 0.25, "hour before, seed " + seed);
    }
  }

  @Test
  void everyWindowNeedsAWiderLineThanOneAndAStepPastTheFloorIsFoundOnlyByTheSecond() {
    List<WindowBound.Series> series = binomial(7);
    List<WindowBound.Sums> sums = series.stream().map(WindowBound.Sums::of).toList();
    double one = WindowBound.calibrate(sums, 1, true);
    double every = WindowBound.calibrate(sums, 0, true);
    assertTrue(every < one - 0.5, "multiplicity widens the line: " + every + " vs " + one);
    // A -10 % step sits at the floor: a line calibrated on healthy noise rarely sees it.
    double[] atFloor = WindowBound.delays(series, sums, 0, true, 0.10, every);
    assertTrue(atFloor.length < 0.05 * WindowBound.drops(series), atFloor.length + " found");
    // A -30 % step is far past it: every one found, within minutes.
    double[] far = WindowBound.delays(series, sums, 0, true, 0.30, every);
    assertEquals(WindowBound.drops(series), far.length);
    assertTrue(java.util.Arrays.stream(far).max().orElseThrow() <= 5, "30 % within 5 min");
  }
}
