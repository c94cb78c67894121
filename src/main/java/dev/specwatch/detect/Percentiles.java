package dev.specwatch.detect;

import java.util.Arrays;

/** Percentiles of samples, the one definition the digest and `policies suggest` share. */
public final class Percentiles {
  private Percentiles() {}

  /**
   * The {@code q}-quantile (0..1) by linear interpolation between order statistics (type 7, numpy's
   * default); NaN for no values.
   */
  public static double of(double[] values, double q) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    double rank = q * (sorted.length - 1);
    int lo = (int) Math.floor(rank);
    int hi = (int) Math.ceil(rank);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
  }
}
