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
 * running request, each step weighted by its load. Its standard error comes from the residuals e =
 * tokens/s − V·running, with an effective sample size n·(1 − ρ)/(1 + ρ) for their lag-1
 * autocorrelation ρ between consecutive steps (traffic is correlated over minutes; counting every
 * step as independent would make the interval far too narrow). The speed-up S = V_spec / V_base
 * gets a 95 % interval on the log scale, exp(ln S ± 1.96·√((se_s/V_s)² + (se_b/V_b)²)).
 */
public final class SpeedupByLoad {
  private SpeedupByLoad() {}

  /** Steps below this many per side and bucket give no number. */
  public static final int MIN_STEPS = 30;

  /** Effective samples below this per side and bucket give no number. */
  public static final double MIN_EFFECTIVE = 5;

  private static final double Z95 = 1.959964;

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

  /** A side's estimate in one bucket. */
  public record Speed(int steps, double effective, double perRequest, double standardError) {}

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
      double se =
          Math.sqrt(
              square(s.standardError() / s.perRequest())
                  + square(base.standardError() / base.perRequest()));
      double low = ratio * Math.exp(-Z95 * se);
      double high = ratio * Math.exp(Z95 * se);
      String verdict = low > 1 ? "pays" : high < 1 ? "costs" : BREAKS_EVEN;
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
      if (verdict.equals("pays")) {
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

  /** One side's speed in bucket {@code b}: the ratio estimator and its standard error. */
  public static Speed speed(List<Step> steps, int b) {
    double sumY = 0;
    double sumX = 0;
    List<double[]> in = new ArrayList<>();
    List<Boolean> follows = new ArrayList<>();
    boolean previousIn = false;
    for (Step s : steps) {
      boolean inBucket = valid(s) && bucketOf(s.running()) == b;
      if (inBucket) {
        in.add(new double[] {s.tokensPerSecond(), s.running()});
        follows.add(previousIn && !s.gap());
        sumY += s.tokensPerSecond();
        sumX += s.running();
      }
      previousIn = inBucket;
    }
    int n = in.size();
    if (n == 0) {
      return new Speed(0, 0, Double.NaN, Double.NaN);
    }
    double v = sumY / sumX;
    double meanX = sumX / n;
    double[] e = new double[n];
    double sumE2 = 0;
    for (int i = 0; i < n; i++) {
      e[i] = in.get(i)[0] - v * in.get(i)[1];
      sumE2 += e[i] * e[i];
    }
    if (n < 2 || sumE2 == 0) {
      return new Speed(n, n, v, 0);
    }
    // Lag-1 autocorrelation over pairs of consecutive steps that are both in the bucket.
    double lag = 0;
    int pairs = 0;
    for (int i = 1; i < n; i++) {
      if (follows.get(i)) {
        lag += e[i] * e[i - 1];
        pairs++;
      }
    }
    double rho = pairs == 0 ? 0 : (lag / pairs) / (sumE2 / n);
    rho = Math.max(0, Math.min(0.95, rho));
    double effective = n * (1 - rho) / (1 + rho);
    double variance = sumE2 / (n - 1);
    double se = Math.sqrt(variance / effective) / meanX;
    return new Speed(n, effective, v, se);
  }

  private static double square(double x) {
    return x * x;
  }
}
