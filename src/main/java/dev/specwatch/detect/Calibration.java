package dev.specwatch.detect;

/**
 * Thresholds of a Gaussian log-likelihood-ratio CUSUM from a target in-control average run length
 * (ARL0: the mean number of steps between false alarms on healthy data).
 *
 * <p>Siegmund's corrected diffusion approximation (Siegmund 1985, Sequential Analysis, ch. X): for
 * a CUSUM of LLR increments of observations with standardized shift {@code Δ} (per-step
 * Kullback-Leibler information {@code I = Δ²/2}), ARL0 ≈ (e^b − b − 1) / I with b = h + 1.166 Δ.
 * The 1.166 (= 2 × 0.583) corrects for the overshoot of the discrete walk over the boundary; the
 * approximation is within a few per cent for Δ up to about 2 (checked by simulation in
 * CalibrationTest). Under a shift of exactly the designed size the same approximation gives the
 * detection delay: ARL1 ≈ (e^−b + b − 1) / I.
 */
public final class Calibration {
  static final double OVERSHOOT = 1.166;

  private Calibration() {}

  /** In-control ARL (steps) of a CUSUM with LLR threshold {@code h} and per-step information. */
  public static double arl0(double h, double information) {
    double b = h + OVERSHOOT * Math.sqrt(2 * information);
    return (Math.exp(b) - b - 1) / information;
  }

  /** Mean steps to detect a shift of exactly the designed size: (e^−b + b − 1) / I. */
  public static double arl1(double h, double information) {
    double b = h + OVERSHOOT * Math.sqrt(2 * information);
    return (Math.exp(-b) + b - 1) / information;
  }

  /**
   * The LLR threshold h ≥ 0 whose in-control ARL is {@code arlSteps} at the given per-step
   * information (bisection on the monotone {@link #arl0}).
   */
  public static double threshold(double arlSteps, double information) {
    if (!(arlSteps > 1) || !(information > 0)) {
      throw new IllegalArgumentException("need arlSteps > 1 and information > 0");
    }
    double lo = 0;
    double hi = 1;
    while (arl0(hi, information) < arlSteps) {
      hi *= 2;
      if (hi > 1e4) {
        return hi;
      }
    }
    if (arl0(lo, information) >= arlSteps) {
      return 0;
    }
    for (int i = 0; i < 100; i++) {
      double mid = (lo + hi) / 2;
      if (arl0(mid, information) < arlSteps) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return hi;
  }
}
