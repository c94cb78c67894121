package dev.specwatch.bench;

import dev.specwatch.advisor.LoadSchedule;
import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.testing.RooflineWorld;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * `make advice-bench`: the advisor's k by load ({@link LoadSchedule}) against worlds whose step
 * time it does not model ({@link RooflineWorld}; docs/SPEEDUP.md, "Advice against another world").
 *
 * <p>Per world and current k, per bucket of running requests: the advisor is given what {@code
 * advise} would measure there, exactly (the true speed-up at the current k and the acceptance by
 * position), so what is left is the error of its cost model alone. Regret is the speed-up lost
 * against the world's best k within the current one (what the advisor may choose): 1 − S(chosen) /
 * S(best). "Beyond" is what the best k above the current one would add (the advisor never
 * extrapolates there and says so). "Keep" is the regret of changing nothing (the current k
 * everywhere).
 */
public final class AdviceRegretBench {
  private AdviceRegretBench() {}

  static final int MAX_K = 7;
  static final int BUCKETS = 8; // 1, 2–3, …, 128–255 running requests

  record Row(
      String world,
      int currentK,
      int bucket,
      int chosen,
      int best,
      double regret,
      double keep,
      double beyond) {}

  static List<Row> run(RooflineWorld w, int currentK) {
    return run(w, currentK, null);
  }

  /**
   * @param noise null for exact measurements; else the speed-up is measured with a relative error
   *     of sd 2 % and each position's acceptance with an absolute error of sd 0.02 (about what a
   *     bucket with a few hours of data gives: docs/SPEEDUP.md)
   */
  static List<Row> run(RooflineWorld w, int currentK, SplittableRandom noise) {
    List<SpeedupByLoad.Bucket> buckets = new ArrayList<>();
    Map<Integer, List<Double>> positions = new HashMap<>();
    for (int b = 0; b < BUCKETS; b++) {
      int min = 1 << b;
      int max = (1 << (b + 1)) - 1;
      int batch = (int) Math.round(Math.sqrt((double) min * max));
      double s = w.speedup(batch, currentK) * (noise == null ? 1 : 1 + 0.02 * noise.nextGaussian());
      buckets.add(new SpeedupByLoad.Bucket(min, max, 10, 10, s, s, s, null, null, null, null));
      List<Double> a = new ArrayList<>();
      for (double x : w.acceptance().subList(0, currentK)) {
        a.add(noise == null ? x : Math.min(1, Math.max(0, x + 0.02 * noise.nextGaussian())));
      }
      positions.put(b, a);
    }
    List<LoadSchedule.Entry> schedule =
        LoadSchedule.schedule(new SpeedupByLoad.Result(buckets, null), positions, currentK);
    List<Row> rows = new ArrayList<>();
    for (LoadSchedule.Entry e : schedule) {
      int b = SpeedupByLoad.bucketOf(e.runningMin());
      int batch = (int) Math.round(Math.sqrt((double) e.runningMin() * e.runningMax()));
      int best = w.bestK(batch, currentK);
      int bestAny = w.bestK(batch, MAX_K);
      double sBest = w.speedup(batch, best);
      rows.add(
          new Row(
              w.name(),
              currentK,
              b,
              e.k(),
              best,
              1 - w.speedup(batch, e.k()) / sBest,
              1 - w.speedup(batch, currentK) / sBest,
              w.speedup(batch, bestAny) / sBest - 1));
    }
    return rows;
  }

  public static void main(String[] args) {
    List<Row> all = new ArrayList<>();
    System.out.println(
        "| world | current k | running | advised k | best k | regret | keep k | beyond k |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (RooflineWorld w : RooflineWorld.WORLDS) {
      for (int k : new int[] {2, 3, 5}) {
        for (Row r : run(w, k)) {
          all.add(r);
          System.out.printf(
              Locale.ROOT,
              "| %s | %d | %d–%d | %d | %d | %.1f %% | %.1f %% | %+.1f %% |%n",
              r.world(),
              r.currentK(),
              1 << r.bucket(),
              (1 << (r.bucket() + 1)) - 1,
              r.chosen(),
              r.best(),
              100 * r.regret(),
              100 * r.keep(),
              100 * r.beyond());
        }
      }
    }
    double[] regrets = all.stream().mapToDouble(Row::regret).sorted().toArray();
    double[] keeps = all.stream().mapToDouble(Row::keep).sorted().toArray();
    long right = all.stream().filter(r -> r.chosen() == r.best()).count();
    long offWhenOn = all.stream().filter(r -> r.chosen() == 0 && r.best() > 0).count();
    long onWhenOff = all.stream().filter(r -> r.chosen() > 0 && r.best() == 0).count();
    System.out.printf(
        Locale.ROOT,
        "%n%d buckets: advised k = best k in %d (%.0f %%); regret median %.2f %%, p90 %.2f %%, max"
            + " %.2f %%; keeping the current k: median %.2f %%, p90 %.2f %%, max %.2f %%;"
            + " speculation turned off where it paid: %d, left on where it cost: %d%n",
        all.size(),
        right,
        100.0 * right / all.size(),
        100 * quantile(regrets, 0.5),
        100 * quantile(regrets, 0.9),
        100 * regrets[regrets.length - 1],
        100 * quantile(keeps, 0.5),
        100 * quantile(keeps, 0.9),
        100 * keeps[keeps.length - 1],
        offWhenOn,
        onWhenOff);
    noisy();
  }

  /** The same worlds with measurement noise, 20 seeds: the regret's distribution. */
  static void noisy() {
    List<Row> all = new ArrayList<>();
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      for (RooflineWorld w : RooflineWorld.WORLDS) {
        for (int k : new int[] {2, 3, 5}) {
          all.addAll(run(w, k, random));
        }
      }
    }
    double[] regrets = all.stream().mapToDouble(Row::regret).sorted().toArray();
    long right = all.stream().filter(r -> r.chosen() == r.best()).count();
    long worse = all.stream().filter(r -> r.regret() > r.keep() + 1e-12).count();
    System.out.printf(
        Locale.ROOT,
        "with measurement noise (speed-up sd 2 %%, acceptance by position sd 0.02), 20 seeds, %d"
            + " buckets: advised k = best k in %.0f %%; regret median %.2f %%, p90 %.2f %%, p99"
            + " %.2f %%, max %.2f %%; worse than keeping the current k in %d (%.1f %%)%n",
        all.size(),
        100.0 * right / all.size(),
        100 * quantile(regrets, 0.5),
        100 * quantile(regrets, 0.9),
        100 * quantile(regrets, 0.99),
        100 * regrets[regrets.length - 1],
        worse,
        100.0 * worse / all.size());
  }

  private static double quantile(double[] sorted, double q) {
    return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  }
}
