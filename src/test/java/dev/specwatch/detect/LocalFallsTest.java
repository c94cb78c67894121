package dev.specwatch.detect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The widening of the sudden-drop test (docs/DETECTION.md, "Sudden drops"): the expected shortfall
 * of the lowest 2 % of standardized block deviations over the standard normal's. Deviations drawn
 * from the model's own variance give about 1; a mix that jumps (a batch job starting: −5 % in one
 * block, a few times a day) gives falls the variance averages away, and a widening well above 1.
 */
class LocalFallsTest {
  private static final double SAMPLING = 4e-5;
  private static final double PER_BLOCK = 2e-5;

  /** A week of 15-minute blocks (672), each {d, sampling variance}. */
  private static List<double[]> blocks(long seed, double jumpShare, double jump) {
    SplittableRandom random = new SplittableRandom(seed);
    double sd = Math.sqrt(SAMPLING + PER_BLOCK);
    List<double[]> out = new ArrayList<>();
    for (int i = 0; i < 672; i++) {
      double d = sd * CalibrationTest.gaussian(random);
      if (random.nextDouble() < jumpShare) {
        d -= jump;
      }
      out.add(new double[] {d, SAMPLING});
    }
    return out;
  }

  @Test
  void deviationsFromTheModelsOwnVarianceAreNotWidened() {
    for (long seed = 1; seed <= 10; seed++) {
      double w = LocalFalls.widening(blocks(seed, 0, 0), PER_BLOCK);
      // The tail of 13 of 672 normal draws: its expected shortfall is within about 15 % of the
      // normal's, and the widening is never below 1.
      assertThat(w).as("seed %d", seed).isBetween(1.0, 1.2);
    }
  }

  @Test
  void jumpsOfTheMixWidenTheTestByTheirSize() {
    for (long seed = 1; seed <= 10; seed++) {
      // One block in 30 falls 5 % (about three a day): in the variance they count little, in the
      // lowest 2 % they are all there is.
      List<double[]> jumps = blocks(seed, 1.0 / 30, 0.05);
      double perBlock = 0;
      for (double[] b : jumps) {
        perBlock += b[0] * b[0] - b[1];
      }
      perBlock = Math.max(0, perBlock / jumps.size());
      double w = LocalFalls.widening(jumps, perBlock);
      assertThat(w).as("seed %d", seed).isGreaterThan(1.5);
    }
  }

  @Test
  void excursionsBelowTheLearnedLevelWidenTheMainTestByTheirTail() {
    java.time.Instant t0 = java.time.Instant.parse("2026-11-01T00:00:00Z");
    for (long seed = 1; seed <= 10; seed++) {
      // The same week of blocks as StepSamples of 9000 trials around a flat learned level of 0.6.
      for (double jumpShare : new double[] {0, 1.0 / 30}) {
        List<double[]> d = blocks(seed, jumpShare, 0.05);
        List<StepSample> samples = new ArrayList<>();
        double perBlock = 0;
        for (int i = 0; i < d.size(); i++) {
          double p = 0.6 + d.get(i)[0];
          samples.add(new StepSample(t0.plusSeconds(900L * i), p * 300, 300, p * 9000, 9000));
          perBlock += d.get(i)[0] * d.get(i)[0] - 0.24 / 9000;
        }
        perBlock = Math.max(0, perBlock / d.size());
        double w = LocalFalls.againstLevel(samples, null, 0.6, 1.0, 1.0, perBlock);
        if (jumpShare == 0) {
          assertThat(w).as("seed %d, no jumps", seed).isBetween(1.0, 1.2);
        } else {
          assertThat(w).as("seed %d, jumps", seed).isGreaterThan(1.5);
        }
      }
    }
  }

  @Test
  void tooFewBlocksSayNothingOfTheTail() {
    assertThat(LocalFalls.widening(blocks(3, 1.0 / 10, 0.1).subList(0, 95), PER_BLOCK))
        .isEqualTo(1.0);
  }

  @Test
  void theNormalsExpectedShortfallIsThatOfTheTail() {
    // φ(z) / α at z = Φ⁻¹(0.98) = 2.0537.
    double z = 2.0537;
    double density = Math.exp(-z * z / 2) / Math.sqrt(2 * Math.PI);
    assertThat(density / LocalFalls.TAIL)
        .isCloseTo(LocalFalls.NORMAL_SHORTFALL, org.assertj.core.api.Assertions.within(1e-3));
  }
}
