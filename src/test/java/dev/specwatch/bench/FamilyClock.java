package dev.specwatch.bench;

import dev.specwatch.testing.HistoryGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;

/**
 * A held-out family's own clock and its slow wander (AR(1), correlation time {@code tau} seconds,
 * sd {@code sd}), drawn from the model's random stream in the order the families have always drawn
 * them: the wander's first value at the first step, then the family's own first draws, then the
 * wander's step. One per {@link HistoryGenerator.Noise}, like the family's own state.
 */
final class FamilyClock {
  private final double tau;
  private final double sd;
  private Instant start;
  private double x;

  FamilyClock(double tau, double sd) {
    this.tau = tau;
    this.sd = sd;
  }

  /** The wander at {@code t}, {@code dt} seconds after the step before. */
  double wander(Instant t, double dt, SplittableRandom r) {
    return wander(t, dt, r, () -> {});
  }

  /**
   * The wander at {@code t}, {@code dt} seconds after the step before; at the first step {@code
   * first} runs after the wander's first draw (the family's own first draws).
   */
  double wander(Instant t, double dt, SplittableRandom r, Runnable first) {
    if (start == null) {
      start = t;
      x = sd * HistoryGenerator.gaussian(r);
      first.run();
    }
    x = HistoryGenerator.ar1(x, dt, tau, sd, r);
    return x;
  }

  /** Whole seconds since the first step. */
  long seconds(Instant t) {
    return Duration.between(start, t).toSeconds();
  }
}
