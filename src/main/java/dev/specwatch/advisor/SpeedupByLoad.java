package dev.specwatch.advisor;

import java.util.ArrayList;
import java.util.List;

/**
 * Measured speed-up of speculative decoding by load: per-request decode speed of a speculative
 * deployment against a baseline's, in buckets of running requests by powers of two (docs/SPEEDUP.md
 * gives the method and what it cannot tell).
 *
 * <p>Per side and bucket, the speed is the ratio estimator V = Σ tokens/s ÷ Σ running over the
 * steps whose (rounded) mean running requests fall in the bucket: generated tokens per second per
 * running request, each step weighted by its load. Its standard error is a batch-means one: the
 * window's steps are cut into {@link #BATCHES} consecutive batches, the residuals e = tokens/s −
 * V·running of the bucket's steps are summed per batch, and Var(Σ e) is estimated by m/(m − 1)·Σ
 * S_b² over the m batches that hold any of them, with Student's t at m − 1 degrees of freedom. A
 * batch is hours long, so correlation between steps (traffic, the prompt mix, clocks drifting over
 * hours) stays inside it; the t with few degrees of freedom pays for the few batches (Ibragimov and
 * Müller 2010: t-statistic based correlation and heterogeneity robust inference). The speed-up S =
 * V_spec / V_base gets a 95 % interval on the log scale, exp(ln S ± t·√((se_s/V_s)² +
 * (se_b/V_b)²)), t at the Welch–Satterthwaite degrees of freedom of the two sides.
 */
public final class SpeedupByLoad {
  private SpeedupByLoad() {}

  /** Steps below this many per side and bucket give no number. */
  public static final int MIN_STEPS = 30;

  /** Effective samples below this per side and bucket give no number. */
  public static final double MIN_EFFECTIVE = 5;

  /** The consecutive batches a side's window is cut into for the standard error. */
  public static final int BATCHES = 10;

  /**
   * A bucket that ran in fewer of the window's batches than this is cut instead into {@link
   * #BATCHES} runs of its own consecutive steps.
   */
  public static final int MIN_BATCHES = 3;

  /**
   * One evaluation step of one deployment, in time order: generated tokens per second over the step
   * and mean running requests. {@code gap} marks a step that does not follow the one before (a
   * missing sample between them), so no autocorrelation is counted across it.
   */
  public record Step(double tokensPerSecond, double running, boolean gap) {
    public Step(double tokensPerSecond, double running) {
      this(tokensPerSecond, running, false);
    }
  }

  /**
   * A side's estimate in one bucket.
   *
   * @param effective the steps' worth of independent information: n²·s² ÷ the estimated Var(Σ e), n
   *     for independent steps, fewer the more they move together
   * @param batches the batches of the window holding the bucket's steps (degrees of freedom + 1)
   */
  public record Speed(
      int steps, double effective, double perRequest, double standardError, int batches) {}

  /**
   * One bucket of load.
   *
   * @param hours data behind the speculative side, in hours
   * @param baselineHours data behind the baseline side
   * @param speedup null when either side has too little data ({@code note} says which)
   * @param verdict {@code pays} (the interval is above 1), {@code costs} (below 1), {@code
   *     breaks_even} (the interval holds 1: no better and no worse than the baseline, as far as the
   *     data can tell), or {@code too_little_data}
   */
  public record Bucket(
      int runningMin,
      int runningMax,
      double hours,
      double baselineHours,
      Double speedup,
      Double low,
      Double high,
      Double tokensPerSecondPerRequest,
      Double baselineTokensPerSecondPerRequest,
      String verdict,
      String note) {
    /** "1.19× per request at 4–7 running requests", as every screen words it. */
    public String headline() {
      return SpeedupByLoad.headline(speedup, runningMin, runningMax);
    }

    /** {@link SpeedupByLoad#mostRunLine} of this bucket. */
    public String mostRunLine() {
      return SpeedupByLoad.mostRunLine(speedup, low, high, runningMin, runningMax);
    }
  }

  /**
   * "1.19× per request at 4–7 running requests (95 % 1.17–1.21), the load it ran most": the
   * headline of {@link Result#mostRun} in the words of the recipe page, {@code advise} and the
   * digest.
   */
  public static String mostRunLine(
      double speedup, double low, double high, int runningMin, int runningMax) {
    return headline(speedup, runningMin, runningMax)
        + String.format(
            java.util.Locale.ROOT, " (95 %% %.2f–%.2f), the load it ran most", low, high);
  }

  /** "1.19× per request at 4–7 running requests" (or "at 1 running request"). */
  public static String headline(double speedup, int runningMin, int runningMax) {
    String load =
        runningMin == runningMax
            ? runningMin + " running request" + (runningMin == 1 ? "" : "s")
            : runningMin + "–" + runningMax + " running requests";
    return String.format(java.util.Locale.ROOT, "%.2f× per request at %s", speedup, load);
  }

  /**
   * @param paysUpToRunning the largest {@code running_max} of a bucket whose verdict is {@code
   *     pays} (its interval above 1); null when none is
   */
  public record Result(List<Bucket> byLoad, Integer paysUpToRunning) {
    /**
     * The headline every screen gives (the recipe page, {@code advise}, the digest): the bucket
     * with a speed-up where the speculative deployment ran the most hours (on a tie, the lower
     * load); null when no bucket has a number.
     */
    /**
     * "; break-even at 64–127 running (the 95 % interval holds 1×)": the loads whose verdict is
     * {@code breaks_even}, as the recipe page, {@code advise}, {@code speedup} and the digest say
     * them after "pays up to"; empty when there are none.
     */
    public String breaksEvenClause() {
      List<String> loads =
          byLoad.stream()
              .filter(b -> BREAKS_EVEN.equals(b.verdict()))
              .map(
                  b ->
                      b.runningMin() == b.runningMax()
                          ? Integer.toString(b.runningMin())
                          : b.runningMin() + "–" + b.runningMax())
              .toList();
      return SpeedupByLoad.breaksEvenClause(loads);
    }

    public Bucket mostRun() {
      Bucket most = null;
      for (Bucket b : byLoad) {
        if (b.speedup() != null && (most == null || b.hours() > most.hours())) {
          most = b;
        }
      }
      return most;
    }
  }

  /** {@link Result#breaksEvenClause} of these loads ("64–127"); empty for none. */
  public static String breaksEvenClause(List<String> loads) {
    return loads.isEmpty()
        ? ""
        : "; break-even at " + String.join(", ", loads) + " running (the 95 % interval holds 1×)";
  }

  /** The verdict of a bucket whose whole interval is above 1. */
  public static final String PAYS = "pays";

  /** The verdict of a bucket whose whole interval is below 1. */
  public static final String COSTS = "costs";

  /** The verdict of a bucket whose interval holds 1. */
  public static final String BREAKS_EVEN = "breaks_even";

  /** The bucket of a mean running-requests value: 0 for 1, 1 for 2–3, 2 for 4–7, …; −1 idle. */
  public static int bucketOf(double running) {
    long n = Math.round(running);
    return n < 1 ? -1 : 63 - Long.numberOfLeadingZeros(n);
  }

  /**
   * The speed-up by load.
   *
   * @param stepSeconds the length of one step, for the hours of data behind a bucket
   */
  public static Result measure(List<Step> speculative, List<Step> baseline, double stepSeconds) {
    int top = Math.max(maxBucket(speculative), maxBucket(baseline));
    List<Bucket> buckets = new ArrayList<>();
    Integer paysUpTo = null;
    for (int b = 0; b <= top; b++) {
      Speed s = speed(speculative, b);
      Speed base = speed(baseline, b);
      int min = 1 << b;
      int max = (1 << (b + 1)) - 1;
      double hours = s.steps() * stepSeconds / 3600;
      double baseHours = base.steps() * stepSeconds / 3600;
      String missing = missing(s, "speculative") + missing(base, "baseline");
      if (s.steps() == 0 && base.steps() == 0) {
        continue;
      }
      if (!missing.isEmpty()) {
        buckets.add(
            new Bucket(
                min,
                max,
                hours,
                baseHours,
                null,
                null,
                null,
                s.steps() == 0 ? null : s.perRequest(),
                base.steps() == 0 ? null : base.perRequest(),
                "too_little_data",
                missing.strip()));
        continue;
      }
      double ratio = s.perRequest() / base.perRequest();
      double relS = square(s.standardError() / s.perRequest());
      double relB = square(base.standardError() / base.perRequest());
      double se = Math.sqrt(relS + relB);
      double t = t95(welch(relS, s.batches() - 1, relB, base.batches() - 1));
      double low = ratio * Math.exp(-t * se);
      double high = ratio * Math.exp(t * se);
      String verdict = low > 1 ? PAYS : high < 1 ? COSTS : BREAKS_EVEN;
      buckets.add(
          new Bucket(
              min,
              max,
              hours,
              baseHours,
              ratio,
              low,
              high,
              s.perRequest(),
              base.perRequest(),
              verdict,
              null));
      // Pays when the interval is above 1, not the point estimate: a bucket reading 1.008
      // (0.994–1.022) breaks even, and "pays up to 127" on it overclaimed.
      if (verdict.equals(PAYS)) {
        paysUpTo = max;
      }
    }
    return new Result(List.copyOf(buckets), paysUpTo);
  }

  private static String missing(Speed s, String side) {
    if (s.steps() < MIN_STEPS) {
      return side + ": " + s.steps() + " steps (at least " + MIN_STEPS + ") ";
    }
    if (s.effective() < MIN_EFFECTIVE) {
      return String.format(
          java.util.Locale.ROOT,
          "%s: %.1f effective steps, too correlated (at least %.0f) ",
          side,
          s.effective(),
          MIN_EFFECTIVE);
    }
    return "";
  }

  private static int maxBucket(List<Step> steps) {
    int max = -1;
    for (Step s : steps) {
      if (valid(s)) {
        max = Math.max(max, bucketOf(s.running()));
      }
    }
    return max;
  }

  private static boolean valid(Step s) {
    return Double.isFinite(s.tokensPerSecond())
        && Double.isFinite(s.running())
        && s.tokensPerSecond() >= 0
        && s.running() > 0;
  }

  /**
   * The Welch–Satterthwaite degrees of freedom of a sum of two variance estimates with {@code dfA}
   * and {@code dfB} degrees of freedom; a side with no variance adds none.
   */
  static double welch(double a, int dfA, double b, int dfB) {
    double denominator = (a == 0 ? 0 : a * a / dfA) + (b == 0 ? 0 : b * b / dfB);
    return denominator == 0 ? Math.max(dfA, dfB) : square(a + b) / denominator;
  }

  /** The two-sided 95 % quantile of Student's t at {@code df} (fractional) degrees of freedom. */
  static double t95(double df) {
    return new org.apache.commons.math3.distribution.TDistribution(null, Math.max(1, df))
        .inverseCumulativeProbability(0.975);
  }

  /**
   * One side's speed in bucket {@code b}: the ratio estimator and its batch-means standard error
   * (the class comment gives the method).
   */
  public static Speed speed(List<Step> steps, int b) {
    // The positions of the bucket's steps in the window, once.
    int[] in = new int[steps.size()];
    int n = 0;
    double sumY = 0;
    double sumX = 0;
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      if (valid(s) && bucketOf(s.running()) == b) {
        in[n++] = i;
        sumY += s.tokensPerSecond();
        sumX += s.running();
      }
    }
    if (n == 0) {
      return new Speed(0, 0, Double.NaN, Double.NaN, 0);
    }
    in = java.util.Arrays.copyOf(in, n);
    double v = sumY / sumX;
    double[] e = new double[n];
    double sumE2 = 0;
    for (int j = 0; j < n; j++) {
      Step s = steps.get(in[j]);
      e[j] = s.tokensPerSecond() - v * s.running();
      sumE2 += e[j] * e[j];
    }
    double[] batchSums = batchSums(e, in, steps.size(), false);
    if (batchSums.length < MIN_BATCHES) {
      // One or two stretches of the window: the runs of its own steps, which speak for those
      // stretches only (docs/SPEEDUP.md).
      batchSums = batchSums(e, in, steps.size(), true);
    }
    int m = batchSums.length;
    double sumS2 = 0;
    for (double sum : batchSums) {
      sumS2 += sum * sum;
    }
    if (n < 2 || sumE2 == 0 || m < 2) {
      return new Speed(n, n, v, 0, m);
    }
    double varianceOfSum = m / (m - 1.0) * sumS2;
    double effective = varianceOfSum == 0 ? n : n * (double) n * (sumE2 / (n - 1)) / varianceOfSum;
    return new Speed(n, effective, v, Math.sqrt(varianceOfSum) / sumX, m);
  }

  /**
   * The sums of the residuals {@code e} of the bucket's steps (at positions {@code in} of a window
   * of {@code size} steps), by batch: the window's {@link #BATCHES} consecutive parts (those
   * holding any of them), or with {@code own} {@link #BATCHES} runs of the bucket's own consecutive
   * steps.
   */
  private static double[] batchSums(double[] e, int[] in, int size, boolean own) {
    int n = in.length;
    double[] sums = new double[BATCHES];
    boolean[] holds = new boolean[BATCHES];
    for (int j = 0; j < n; j++) {
      int batch = (int) (own ? (long) j * BATCHES / n : (long) in[j] * BATCHES / size);
      sums[batch] += e[j];
      holds[batch] = true;
    }
    double[] out = new double[BATCHES];
    int m = 0;
    for (int k = 0; k < BATCHES; k++) {
      if (holds[k]) {
        out[m++] = sums[k];
      }
    }
    return java.util.Arrays.copyOf(out, m);
  }

  private static double square(double x) {
    return x * x;
  }
}
