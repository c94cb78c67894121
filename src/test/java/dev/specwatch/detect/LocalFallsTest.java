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
