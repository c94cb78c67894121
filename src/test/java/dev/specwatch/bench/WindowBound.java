package dev.specwatch.bench;

import dev.specwatch.testing.HistoryGenerator;
import dev.specwatch.testing.HistoryGenerator.Model;
import dev.specwatch.testing.HistoryGenerator.Noise;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * `make window-bound`: how fast a test of "a drop past the floor" over a window finds a 15 % drop
 * on the held-out families when it is calibrated on each family's own noise after the fact, which
 * no detector can be (docs/DETECTION.md, "What the noise allows").
 *
 * <p>For each family, twenty seeds of 30 healthy days at the daemon's 30 s step, from the same
 * generator and noise as {@link HeldOutBench} (other seeds), and the base profile alone. A window
 * test scores the acceptance of the last n steps against a reference scaled by (1 − r), r = 0.10
 * the floor, in binomial standard errors at the window's traffic (what every likelihood test does;
 * a fixed line on the ratio would be set by the quietest hours), and alarms when the score is below
 * a line L. L is fitted on the family's own healthy history (scale 1) so that the score falls below
 * it once per 30 days, counted as entries below the line; at a level exactly at the floor the
 * scaled score is the healthy one, so L holds that rate at the composite null's boundary, where the
 * change rule is designed. Two tests:
 *
 * <ul>
 *   <li><b>the best single window</b>: every n from 30 s to 60 min is tried and the one with the
 *       shortest median delay kept, per family and drop: chosen and calibrated on the data it is
 *       measured on, with no price paid for trying sixty windows;
 *   <li><b>every window</b>: the lowest score over all n up to an hour (a generalized likelihood
 *       ratio over the change point), with one line calibrated jointly: a detector that does not
 *       know the drop's size in advance.
 * </ul>
 *
 * Each against two references: <b>the hour before</b> the window (what the change rule's
 * sudden-drop test uses) and <b>the profile's true level</b> by hour of day, known exactly (a
 * perfectly learned model). Drops are injected at 14:00 on every day after the first, each step
 * after the drop redrawn at the lowered level with the same overdispersion: 580 drops per family
 * and size. A drop not found within two hours counts as slower than every found one. The families
 * are those {@link HeldOutBench#selected} picks: all but the held-back ones, or those {@code
 * -Dbench.families} names.
 */
public final class WindowBound {
  static final Duration STEP = Duration.ofSeconds(30);
  static final int SEEDS = 20;
  static final int DAYS = 30;
  static final double FLOOR = 0.10;
  static final int HOUR = (int) (Duration.ofHours(1).toSeconds() / STEP.toSeconds());
  static final int MAX_WINDOW = HOUR;
  static final int[] WINDOWS = windows();

  private WindowBound() {}

  /** One deployment's scrapes: draft tokens, accepted tokens and the level they were drawn at. */
  static final class Series {
    final long[] tokens;
    final long[] accepted;
    final double[] level;
    final double[] profile;

    Series(long[] tokens, long[] accepted, double[] level, double[] profile) {
      this.tokens = tokens;
      this.accepted = accepted;
      this.level = level;
      this.profile = profile;
    }
  }

  public static void main(String[] args) throws Exception {
    long wallStart = System.nanoTime();
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%nBest single-window test, tuned on each family's own healthy noise after the fact"
                + " (%d seeds x %d days at a %d s step, floor %.0f %%, 1 false alarm per 30 days):"
                + "%n%n| family | reference | test | 15 %% p50 / p90 (window) | 30 %% p50 / p90 (window)"
                + " |%n|---|---|---|---|---|%n",
            SEEDS,
            DAYS,
            STEP.toSeconds(),
            FLOOR * 100));
    List<HeldOutBench.Family> families = new ArrayList<>();
    families.add(new HeldOutBench.Family("base profile alone", () -> Noise.NONE));
    families.addAll(HeldOutBench.FAMILIES.stream().filter(HeldOutBench::selected).toList());
    StringBuilder excursions =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%nShort excursions (measured only; docs/DETECTION.md, \"Minute-long spikes\"): how"
                    + " deep healthy non-overlapping windows go below the true level by hour, once"
                    + " a day per deployment, and the line a page would have to cross if held to"
                    + " that record with the level at the floor, (1 - %.2f)(1 + R) - 1:%n%n| family"
                    + " | 1 min | 2 min | 5 min | 10 min |%n|---|---|---|---|---|%n",
                FLOOR));
    for (HeldOutBench.Family f : families) {
      List<Series> series = simulate(f.noise());
      excursions.append(excursions(f.name(), series));
      List<Sums> sums = series.stream().map(Sums::of).toList();
      for (boolean hourBefore : new boolean[] {true, false}) {
        for (int[] windows : new int[][] {WINDOWS, {0}}) {
          String[] cells = best(series, sums, hourBefore, new double[] {0.15, 0.30}, windows);
          String row =
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %s | %s | %s |%n",
                  f.name(),
                  hourBefore ? "the hour before" : "true level by hour",
                  windows.length > 1 ? "best single window" : "every window (GLR)",
                  cells[0],
                  cells[1]);
          System.out.print(row);
          out.append(row);
        }
      }
    }
    System.out.print(excursions);
    out.append(excursions);
    Path dir = Files.createDirectories(Path.of("target/window-bound"));
    DetectionBench.publish(dir, out.toString(), wallStart);
  }

  /** Window lengths, in steps, at which the history's short excursions are measured. */
  static final int[] EXCURSION_STEPS = {2, 4, 10, 20};

  /**
   * A family's row of short excursions: per window length, R, the relative deviation from the true
   * level by hour that healthy non-overlapping windows fall below once a day per deployment (the
   * {@code SEEDS × DAYS}-th lowest of all), and the line {@code (1 − floor)(1 + R) − 1} a page
   * would have to cross if held to that record with the level at the floor. Windows with fewer than
   * 20 draft tokens a step are left out.
   */
  static String excursions(String family, List<Series> series) {
    StringBuilder row = new StringBuilder("| " + family + " |");
    for (int n : EXCURSION_STEPS) {
      List<Double> deviations = new ArrayList<>();
      for (Series s : series) {
        for (int k = 0; k + n <= s.tokens.length; k += n) {
          double accepted = 0;
          double expected = 0;
          long tokens = 0;
          for (int j = k; j < k + n; j++) {
            accepted += s.accepted[j];
            expected += s.tokens[j] * s.profile[j];
            tokens += s.tokens[j];
          }
          if (tokens >= 20L * n) {
            deviations.add(accepted / expected - 1);
          }
        }
      }
      double[] sorted = deviations.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      double r = sorted[Math.min(sorted.length, SEEDS * DAYS) - 1];
      row.append(
          String.format(
              Locale.ROOT, " %.1f %% · %.1f %% |", 100 * r, 100 * ((1 - FLOOR) * (1 + r) - 1)));
    }
    return row.append('\n').toString();
  }

  static int[] windows() {
    int[] w = new int[MAX_WINDOW];
    for (int i = 0; i < w.length; i++) {
      w[i] = i + 1;
    }
    return w;
  }

  /** Twenty seeds of thirty healthy days, at 30 s, from the held-out bench's generator. */
  static List<Series> simulate(Supplier<Noise> noise) throws IOException {
    Instant from = HistoryGenerator.lastTuesdayMidnight(Instant.parse("2026-01-07T00:00:00Z"));
    Instant to = from.plus(Duration.ofDays(DAYS)).minus(STEP);
    int steps = (int) (Duration.between(from, to).toSeconds() / STEP.toSeconds()) + 1;
    List<Series> all = new ArrayList<>();
    for (int s = 0; s < SEEDS; s++) {
      Model m = new Model("bound", HeldOutBench.BASE, null, from, to, 90_000L + s, noise);
      long[] tokens = new long[steps];
      long[] accepted = new long[steps];
      double[] level = new double[steps];
      double[] profile = new double[steps];
      long[] last = new long[3];
      int[] i = {0};
      HistoryGenerator.simulate(
          m,
          STEP,
          (t, e, lvl, counters) -> {
            int k = i[0]++;
            boolean reset = counters[1] < last[1];
            tokens[k] = reset ? counters[1] : counters[1] - last[1];
            accepted[k] = reset ? counters[2] : counters[2] - last[2];
            System.arraycopy(counters, 0, last, 0, 3);
            level[k] = lvl;
            double hour = (Duration.between(from, t).toSeconds() / 3600.0) % 24;
            profile[k] = HistoryGenerator.mixLevel(HeldOutBench.BASE, hour);
          });
      all.add(new Series(tokens, accepted, level, profile));
    }
    return all;
  }

  /** The best window's delay percentiles for step drops of each size. */
  static String[] best(
      List<Series> series, List<Sums> sums, boolean hourBefore, double[] sizes, int[] windows) {
    double[] bestMedian = new double[sizes.length];
    Arrays.fill(bestMedian, Double.MAX_VALUE);
    String[] cells = new String[sizes.length];
    Arrays.fill(cells, "–");
    for (int n : windows) {
      double line = calibrate(sums, n, hourBefore);
      for (int d = 0; d < sizes.length; d++) {
        double[] found = delays(series, sums, n, hourBefore, sizes[d], line);
        // Every drop counts: one not found within two hours is slower than any that was.
        double[] delays = Arrays.copyOf(found, drops(series));
        Arrays.fill(delays, found.length, delays.length, Double.POSITIVE_INFINITY);
        Arrays.sort(delays);
        double median = delays[delays.length / 2];
        double p90 = delays[(int) Math.floor(0.9 * (delays.length - 1))];
        if (median < bestMedian[d]) {
          bestMedian[d] = median;
          cells[d] =
              String.format(
                  Locale.ROOT,
                  "%.1f / %s min (%s window, line %.1f se, found %.0f %%)",
                  median,
                  Double.isInfinite(p90) ? "> 120" : String.format(Locale.ROOT, "%.1f", p90),
                  minutes(n),
                  line,
                  100.0 * found.length / delays.length);
        }
      }
    }
    return cells;
  }

  static String minutes(int n) {
    if (n <= 0) {
      return "every";
    }
    double m = n * STEP.toSeconds() / 60.0;
    return m == Math.rint(m) ? String.format(Locale.ROOT, "%.0f min", m) : m + " min";
  }

  static int drops(List<Series> series) {
    return series.size() * (DAYS - 1);
  }

  /** Prefix sums of a series' draft tokens, accepted tokens and tokens times the profile level. */
  static final class Sums {
    final long[] tok;
    final long[] acc;
    final double[] expected;

    Sums(long[] tok, long[] acc, double[] expected) {
      this.tok = tok;
      this.acc = acc;
      this.expected = expected;
    }

    static Sums of(Series s) {
      int len = s.tokens.length;
      long[] tok = new long[len + 1];
      long[] acc = new long[len + 1];
      double[] expected = new double[len + 1];
      for (int k = 0; k < len; k++) {
        tok[k + 1] = tok[k] + s.tokens[k];
        acc[k + 1] = acc[k] + s.accepted[k];
        expected[k + 1] = expected[k] + s.tokens[k] * s.profile[k];
      }
      return new Sums(tok, acc, expected);
    }
  }

  /**
   * The window's score against a level {@code scale} times its reference: (ratio / scale − 1) in
   * binomial standard errors of the ratio at the window's (and reference's) traffic, or NaN without
   * traffic. {@code extra} and {@code refExtra} are added to the window's and the reference's
   * accepted tokens (a drop's redraw). Weighing by traffic is what every likelihood test does; a
   * fixed line on the ratio would be set by the quietest hours.
   */
  static double score(
      Sums s, int t, int n, boolean hourBefore, long extra, long refExtra, double scale) {
    long wt = s.tok[t + 1] - s.tok[t + 1 - n];
    long wa = s.acc[t + 1] - s.acc[t + 1 - n] + extra;
    if (wt == 0) {
      return Double.NaN;
    }
    double p = HeldOutBench.LEVEL;
    double unit = HeldOutBench.BASE.phi() * (1 - p) / p;
    if (!hourBefore) {
      double ratio = wa / (s.expected[t + 1] - s.expected[t + 1 - n]);
      return (ratio / scale - 1) / Math.sqrt(unit / wt);
    }
    long rt = s.tok[t + 1 - n] - s.tok[t + 1 - n - HOUR];
    long ra = s.acc[t + 1 - n] - s.acc[t + 1 - n - HOUR] + refExtra;
    if (rt == 0 || ra == 0) {
      return Double.NaN;
    }
    double ratio = ((double) wa / wt) / ((double) ra / rt);
    return (ratio / scale - 1) / Math.sqrt(unit / wt + unit / rt);
  }

  /**
   * The score of the window of {@code n} steps ending at {@code t}, or with {@code n <= 0} the
   * lowest over every window up to an hour (a generalized likelihood ratio over the change point);
   * {@code extra}, when not null, holds a drop's redrawn accepted tokens minus the healthy ones as
   * prefix sums from step {@code at}.
   */
  static double scoreAt(
      Sums s, int t, int n, boolean hourBefore, long[] extra, int at, double scale) {
    double lowest = Double.NaN;
    for (int w = n > 0 ? n : 1; w <= (n > 0 ? n : MAX_WINDOW); w++) {
      long inWindow = 0;
      long inReference = 0;
      if (extra != null) {
        int j = t - at;
        int windowStart = Math.max(0, t - w + 1 - at);
        inWindow = extra[j + 1] - extra[windowStart];
        inReference = extra[windowStart] - extra[Math.max(0, windowStart - HOUR)];
      }
      double z = score(s, t, w, hourBefore, inWindow, inReference, scale);
      if (!Double.isNaN(z) && (Double.isNaN(lowest) || z < lowest)) {
        lowest = z;
      }
    }
    return lowest;
  }

  /** The line the healthy score falls below at most once per 30 days (entries below it). */
  static double calibrate(List<Sums> sums, int n, boolean hourBefore) {
    int span = n > 0 ? n : MAX_WINDOW;
    // An entry below a line L is a step with ratio < L after one at or above it: L in (r, prev].
    // Only the lowest ratios can bound a line this rare: keep the entries among the lowest 1 %.
    List<double[]> ratios = new ArrayList<>();
    int total = 0;
    for (Sums s : sums) {
      double[] r = new double[s.tok.length - 1];
      for (int t = 0; t < r.length; t++) {
        r[t] = t < span + HOUR ? Double.NaN : scoreAt(s, t, n, hourBefore, null, 0, 1);
      }
      ratios.add(r);
      total += r.length;
    }
    double[] all = new double[total];
    int k = 0;
    for (double[] r : ratios) {
      for (double x : r) {
        all[k++] = Double.isNaN(x) ? Double.POSITIVE_INFINITY : x;
      }
    }
    Arrays.sort(all);
    double cap = all[total / 100];
    double[] low = new double[total];
    double[] before = new double[total];
    int m = 0;
    for (double[] r : ratios) {
      double prev = Double.POSITIVE_INFINITY;
      for (double x : r) {
        if (Double.isNaN(x)) {
          prev = Double.POSITIVE_INFINITY;
          continue;
        }
        if (x < cap && x < prev) {
          low[m] = x;
          before[m++] = prev;
        }
        prev = x;
      }
    }
    long allowed = Math.max(1, (long) Math.floor(sums.size() * DAYS / 30.0));
    double lo = -50;
    double hi = cap;
    for (int it = 0; it < 50; it++) {
      double mid = (lo + hi) / 2;
      long entries = 0;
      for (int i = 0; i < m; i++) {
        if (low[i] < mid && mid <= before[i]) {
          entries++;
        }
      }
      if (entries > allowed) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return lo;
  }

  /**
   * Minutes from each injected drop (14:00 on every day after the first) to the window test's first
   * alarm, within two hours; drops never found are left out.
   */
  static double[] delays(
      List<Series> series,
      List<Sums> sums,
      int n,
      boolean hourBefore,
      double size,
      double alarmLine) {
    int perDay = (int) (86_400 / STEP.toSeconds());
    int horizon = 2 * HOUR;
    List<Double> found = new ArrayList<>();
    long seed = 1;
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      Sums sum = sums.get(i);
      for (int day = 1; day < DAYS; day++) {
        int at = day * perDay + 14 * HOUR;
        SplittableRandom random = new SplittableRandom(seed++);
        // extra[j]: the redrawn steps' accepted tokens minus the healthy ones, at + 0 .. at + j -
        // 1.
        long[] extra = new long[horizon + 1];
        for (int j = 0; j < horizon; j++) {
          int k = at + j;
          long acc =
              HistoryGenerator.accepted(
                  s.tokens[k], s.level[k] * (1 - size), HeldOutBench.BASE.phi(), random);
          extra[j + 1] = extra[j] + acc - s.accepted[k];
        }
        for (int j = 0; j < horizon; j++) {
          int t = at + j;
          double z = scoreAt(sum, t, n, hourBefore, extra, at, 1 - FLOOR);
          if (z < alarmLine) {
            found.add((j + 1) * STEP.toSeconds() / 60.0);
            break;
          }
        }
      }
    }
    return found.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
