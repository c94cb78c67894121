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
 *
 * <p>For very informative steps (Δ of several units) the approximation undershoots: the CUSUM then
 * behaves like a one-step (Shewhart) test, and the threshold must at least keep a single step's
 * false-alarm probability under 1/ARL0. The LLR of one step is N(−I, 2I) under H0, so h ≥ −I +
 * √(2I) · z with z the (1 − 1/ARL0) normal quantile; {@link #threshold} takes the larger of both.
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
    double oneStep = -information + Math.sqrt(2 * information) * normalQuantile(1 - 1 / arlSteps);
    if (arl0(lo, information) >= arlSteps) {
      return Math.max(0, oneStep);
    }
    for (int i = 0; i < 100; i++) {
      double mid = (lo + hi) / 2;
      if (arl0(mid, information) < arlSteps) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return Math.max(hi, oneStep);
  }

  /**
   * The standard normal quantile Φ⁻¹(p), 0 &lt; p &lt; 1 (Acklam's rational approximation, relative
   * error below 1.2e-9).
   */
  public static double normalQuantile(double p) {
    if (!(p > 0 && p < 1)) {
      throw new IllegalArgumentException("p must be in (0, 1)");
    }
    double[] a = {
      -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00
    };
    double[] b = {
      -5.447609879822406e+01,
      1.615858368580409e+02,
      -1.556989798598866e+02,
      6.680131188771972e+01,
      -1.328068155288572e+01
    };
    double[] c = {
      -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00
    };
    double[] d = {
      7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00
    };
    double low = 0.02425;
    if (p < low) {
      double q = Math.sqrt(-2 * Math.log(p));
      return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
          / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - low) {
      return -normalQuantile(1 - p);
    }
    double q = p - 0.5;
    double r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
        * q
        / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
}
