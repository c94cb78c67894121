package dev.specwatch.bench;

import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.testing.SpeedupFamilies;
import dev.specwatch.testing.SpeedupFamilies.Family;
import dev.specwatch.testing.SpeedupFamilies.TruthStep;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * `make speedup-bench`: the speed-up estimator's intervals on histories it was not designed on
 * ({@link SpeedupFamilies}; docs/SPEEDUP.md, "Held-out families"), 20 seeds a family, two days of
 * one-minute steps a side by default ({@code -Dbench.days=7} for a week).
 *
 * <p>Per family and estimator: how many bucket intervals there were, how often the interval covers
 * the true speed-up (with a 95 % Wilson interval of that rate), how often the estimate is within 5
 * % of the truth, the same among the estimates whose interval is ±5 % or narrower (those with
 * enough data for a 5 % claim by their own account; how many of all), the median half-width of the
 * interval, and wrong verdicts (pays with a true speed-up below 1, or costs above 1).
 */
public final class SpeedupBench {
  private SpeedupBench() {}

  static final int SEEDS = 20;

  /** One bucket's estimate: its bucket index, the speed-up and its interval. */
  record Estimate(int bucket, double speedup, double low, double high) {}

  interface Estimator {
    String name();

    List<Estimate> measure(List<SpeedupByLoad.Step> speculative, List<SpeedupByLoad.Step> base);
  }

  /** What ships: {@link SpeedupByLoad#measure} (batch means, Student's t). */
  static final Estimator SHIPPED =
      new Estimator() {
        @Override
        public String name() {
          return "batch means";
        }

        @Override
        public List<Estimate> measure(
            List<SpeedupByLoad.Step> speculative, List<SpeedupByLoad.Step> base) {
          List<Estimate> out = new ArrayList<>();
          for (SpeedupByLoad.Bucket b : SpeedupByLoad.measure(speculative, base, 60).byLoad()) {
            if (b.speedup() != null) {
              out.add(
                  new Estimate(
                      SpeedupByLoad.bucketOf(b.runningMin()), b.speedup(), b.low(), b.high()));
            }
          }
          return out;
        }
      };

  /**
   * The interval shipped before issue 40 (lag-1 autocorrelation of the bucket's residuals turned
   * into an effective sample size, normal quantile), or with {@code correlated} false the one that
   * counts every step as independent: kept here to be measured beside what ships.
   */
  static Estimator lagOne(boolean correlated) {
    return new Estimator() {
      @Override
      public String name() {
        return correlated ? "lag-1" : "iid";
      }

      @Override
      public List<Estimate> measure(
          List<SpeedupByLoad.Step> speculative, List<SpeedupByLoad.Step> base) {
        List<Estimate> out = new ArrayList<>();
        for (int b = 0; b < 8; b++) {
          double[] s = lagOneSpeed(speculative, b, correlated);
          double[] r = lagOneSpeed(base, b, correlated);
          if (s == null || r == null) {
            continue;
          }
          double ratio = s[0] / r[0];
          double se = Math.sqrt(Math.pow(s[1] / s[0], 2) + Math.pow(r[1] / r[0], 2));
          out.add(
              new Estimate(
                  b, ratio, ratio * Math.exp(-1.959964 * se), ratio * Math.exp(1.959964 * se)));
        }
        return out;
      }
    };
  }

  /** {speed, standard error} by the lag-1 method, null below 30 steps or 5 effective. */
  static double[] lagOneSpeed(List<SpeedupByLoad.Step> steps, int b, boolean correlated) {
    List<double[]> in = new ArrayList<>();
    List<Boolean> follows = new ArrayList<>();
    boolean previousIn = false;
    double sumY = 0;
    double sumX = 0;
    for (SpeedupByLoad.Step s : steps) {
      boolean inBucket =
          Double.isFinite(s.tokensPerSecond())
              && s.tokensPerSecond() >= 0
              && s.running() > 0
              && SpeedupByLoad.bucketOf(s.running()) == b;
      if (inBucket) {
        in.add(new double[] {s.tokensPerSecond(), s.running()});
        follows.add(previousIn && !s.gap());
        sumY += s.tokensPerSecond();
        sumX += s.running();
      }
      previousIn = inBucket;
    }
    int n = in.size();
    if (n < SpeedupByLoad.MIN_STEPS) {
      return null;
    }
    double v = sumY / sumX;
    double[] e = new double[n];
    double sumE2 = 0;
    for (int i = 0; i < n; i++) {
      e[i] = in.get(i)[0] - v * in.get(i)[1];
      sumE2 += e[i] * e[i];
    }
    double lag = 0;
    int pairs = 0;
    for (int i = 1; i < n; i++) {
      if (follows.get(i)) {
        lag += e[i] * e[i - 1];
        pairs++;
      }
    }
    double rho = !correlated || pairs == 0 ? 0 : (lag / pairs) / (sumE2 / n);
    rho = Math.max(0, Math.min(0.95, rho));
    double effective = n * (1 - rho) / (1 + rho);
    if (effective < SpeedupByLoad.MIN_EFFECTIVE) {
      return null;
    }
    return new double[] {v, Math.sqrt(sumE2 / (n - 1) / effective) / (sumX / n)};
  }

  /** Per family and estimator, the tally. */
  static final class Tally {
    int intervals;
    int covered;
    int close;
    int tight;
    int tightClose;
    int wrongVerdicts;
    final List<Double> halfWidths = new ArrayList<>();

    void add(Estimate e, double truth) {
      intervals++;
      if (e.low() <= truth && truth <= e.high()) {
        covered++;
      }
      boolean near = Math.abs(e.speedup() / truth - 1) < 0.05;
      if (near) {
        close++;
      }
      // the estimates stated to ±5 % or better: enough data for a 5 % claim, by the interval's
      // own account
      if ((e.high() - e.low()) / 2 / e.speedup() <= 0.05) {
        tight++;
        if (near) {
          tightClose++;
        }
      }
      if ((e.low() > 1 && truth < 1) || (e.high() < 1 && truth > 1)) {
        wrongVerdicts++;
      }
      halfWidths.add((e.high() - e.low()) / 2 / e.speedup());
    }

    double coverage() {
      return covered / (double) intervals;
    }

    double close() {
      return close / (double) intervals;
    }

    double medianHalfWidth() {
      double[] w = halfWidths.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return w.length == 0 ? Double.NaN : w[w.length / 2];
    }
  }

  /** Every family against every estimator, {@code seeds} seeds of {@code steps} steps a side. */
  static List<Tally[]> run(
      List<Family> families, List<Estimator> estimators, int seeds, int steps) {
    List<Tally[]> out = new ArrayList<>();
    for (Family f : families) {
      Tally[] tallies = new Tally[estimators.size()];
      Arrays.setAll(tallies, i -> new Tally());
      for (long seed = 1; seed <= seeds; seed++) {
        List<TruthStep> spec = f.side(true, steps, seed);
        List<TruthStep> base = f.side(false, steps, 10_000 + seed);
        for (int i = 0; i < estimators.size(); i++) {
          for (Estimate e :
              estimators.get(i).measure(SpeedupFamilies.steps(spec), SpeedupFamilies.steps(base))) {
            tallies[i].add(e, SpeedupFamilies.truth(spec, base, e.bucket()));
          }
        }
      }
      out.add(tallies);
    }
    return out;
  }

  /** The 95 % Wilson interval of a rate of {@code k} in {@code n}. */
  static double[] wilson(int k, int n) {
    double z = 1.959964;
    double p = k / (double) n;
    double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
    double half = z * Math.sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z * z / n);
    return new double[] {centre - half, centre + half};
  }

  public static void main(String[] args) {
    int days = Integer.getInteger("bench.days", 2);
    List<Estimator> estimators = List.of(SHIPPED, lagOne(true), lagOne(false));
    System.out.printf(
        Locale.ROOT,
        "speed-up intervals on held-out families: %d seeds each, %d days of 1-minute steps a side%n",
        SEEDS,
        days);
    System.out.printf(
        Locale.ROOT,
        "%-20s %-12s %9s %9s %15s %10s %17s %10s %7s%n",
        "family",
        "estimator",
        "intervals",
        "coverage",
        "(95 % Wilson)",
        "within 5%",
        "where ±5% (of n)",
        "half-width",
        "wrong");
    List<Family> families = SpeedupFamilies.ALL;
    List<Tally[]> results = run(families, estimators, SEEDS, days * 1440);
    for (int f = 0; f < results.size(); f++) {
      for (int i = 0; i < estimators.size(); i++) {
        Tally t = results.get(f)[i];
        double[] ci = wilson(t.covered, t.intervals);
        System.out.printf(
            Locale.ROOT,
            "%-20s %-12s %9d %8.1f%% %6.1f–%5.1f %%  %9.1f%% %9s (%4d) %9.1f%% %7d%n",
            families.get(f).name(),
            estimators.get(i).name(),
            t.intervals,
            100 * t.coverage(),
            100 * ci[0],
            100 * ci[1],
            100 * t.close(),
            t.tight == 0
                ? "–"
                : String.format(Locale.ROOT, "%.1f%%", 100.0 * t.tightClose / t.tight),
            t.tight,
            100 * t.medianHalfWidth(),
            t.wrongVerdicts);
      }
    }
  }
}
