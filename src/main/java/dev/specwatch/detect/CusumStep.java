package dev.specwatch.detect;

/**
 * One shift's hypotheses for a step of {@link DropTest}'s CUSUMs, "level = nullMean" against "level
 * = altMean", and how a step moves a statistic.
 *
 * <p>A step adds its Gaussian log-likelihood ratio, but at most {@link #STEP_CAP} of the
 * statistic's threshold, so no single step alarms and two in a row can. Without the cap one
 * heavy-tailed outlier (a step 10 to 15 sds low: a burst of hard prompts, a scrape that caught half
 * a batch) was a whole alarm to the statistic of the largest shift, whose alternative it resembles;
 * under Student-t steps healthy recipes paged about 8 times as often as designed
 * (docs/DETECTION.md, "One step is never enough").
 */
record CusumStep(double nullMean, double altMean) {
  /** The most one step adds to a statistic, as a share of its threshold. */
  public static final double STEP_CAP = 0.75;

  /** The statistic after a step whose log-likelihood ratio is {@code llr}, never below 0. */
  static double advance(double statistic, double llr, double threshold) {
    return Math.max(0, statistic + Math.min(STEP_CAP * threshold, llr));
  }

  double llr(double y, NoiseModel m, double trials) {
    double mid = (nullMean + altMean) / 2;
    return (altMean - nullMean) / m.variance(mid, trials) * (y - mid);
  }

  double information(NoiseModel m, double trials) {
    double mid = (nullMean + altMean) / 2;
    return Math.pow(altMean - nullMean, 2) / (2 * m.variance(mid, trials));
  }
}
