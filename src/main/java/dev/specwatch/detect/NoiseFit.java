package dev.specwatch.detect;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Learns a {@link NoiseModel} from a recipe's history: robust (median) levels, overall and by hour
 * of day; residuals beyond 5 robust standard deviations (past incidents, restarts) set aside; the
 * variance model fitted by least squares of squared residuals on binomial variance; the lag-one
 * autocorrelation of the standardized residuals. docs/DETECTION.md explains each step.
 */
public final class NoiseFit {
  /** Steps with fewer trials are idle or nearly so and say nothing about the level. */
  public static final double MIN_TRIALS = 20;

  /** Less active history than this gives no model: too little to know the recipe's normal. */
  public static final Duration MIN_HISTORY = Duration.ofHours(24);

  /**
   * Active samples at most this far apart count the time between them as history: the hole (scrapes
   * that failed for minutes, a pause between jobs) hides no part of the day. Longer ones (an idle
   * night) do not, so a recipe learned from one day still needs a day of traffic.
   */
  public static final Duration HOLE = Duration.ofHours(1);

  private NoiseFit() {}

  /** A model, or why there is none. */
  public sealed interface Result {}

  public record Learned(NoiseModel model) implements Result {}

  /**
   * @param history the active history there was ({@link #history}), less than {@link #MIN_HISTORY}
   */
  public record Insufficient(Duration history) implements Result {
    /** For people: "learning: 6h of active history, needs 24h". */
    public String reason() {
      return String.format(
          Locale.ROOT,
          "learning: %s of active history, needs %s",
          hours(history),
          hours(MIN_HISTORY));
    }
  }

  /**
   * @param samples one sample every {@code sampleEvery} (e.g. 5m) of step-sized increments and of
   *     the block of {@code blockSteps} steps ending at the same time
   */
  public static Result fit(
      List<StepSample> samples, Duration sampleEvery, int blockSteps, Instant now) {
    List<StepSample> active = new ArrayList<>();
    for (StepSample s : samples) {
      if (s.trials() >= MIN_TRIALS && s.successes() >= 0 && s.successes() <= s.trials()) {
        active.add(s);
      }
    }
    Duration history = history(active, sampleEvery);
    if (history.compareTo(MIN_HISTORY) < 0) {
      return new Insufficient(history);
    }
    double[] p = active.stream().mapToDouble(StepSample::proportion).toArray();
    double overall = median(p);
    List<Double> hourly = hourly(active);
    double madFlat = mad(residuals(active, null, overall));
    double madHourly = mad(residuals(active, hourly, overall));
    // The hour-of-day profile must explain something to be worth its noise.
    List<Double> profile = madHourly < 0.9 * madFlat ? hourly : null;
    double[] r = residuals(active, profile, overall);
    double cut = 5 * 1.4826 * Math.max(mad(r), 1e-4);

    // One step: Var(r) = φ b + τ², b = L(1-L)/n, least squares over the kept steps.
    List<double[]> rows = new ArrayList<>();
    for (int i = 0; i < active.size(); i++) {
      if (Math.abs(r[i]) <= cut) {
        double level = level(profile, overall, active.get(i).at());
        rows.add(new double[] {level * (1 - level) / active.get(i).trials(), r[i] * r[i]});
      }
    }
    double[] phiTau = varianceFit(rows);
    double phi = phiTau[0];
    double tau2 = phiTau[1];

    // Blocks of m steps: their extra variance τ_m² beyond φ's binomial part; m τ_m² is the
    // wander's long-run variance per step (equal to τ² when steps are independent).
    double extra = 0;
    int blocks = 0;
    for (int i = 0; i < active.size(); i++) {
      StepSample s = active.get(i);
      if (!(s.blockTrials() >= MIN_TRIALS) || Math.abs(r[i]) > cut) {
        continue;
      }
      double level = level(profile, overall, s.at());
      double rb = s.blockSuccesses() / s.blockTrials() - level;
      if (Math.abs(rb) > cut) {
        continue;
      }
      extra += rb * rb - phi * level * (1 - level) / s.blockTrials();
      blocks++;
    }
    double wander = blocks > 0 ? Math.max(0, blockSteps * extra / blocks) : tau2;
    double[] trials = active.stream().mapToDouble(StepSample::trials).sorted().toArray();
    double reference = trials[(int) Math.min(trials.length - 1, Math.floor(0.9 * trials.length))];
    // The model in doubt: wander over hours beyond what the blocks say, or excursions below the
    // level heavier in their tail than the blocks' wander allows (docs/DETECTION.md). The tests
    // allow for both: the doubt is a graded figure by which the model's wander is widened.
    String doubt = null;
    double base = Math.max(wander, tau2);
    List<StepSample> busy = blocks(active);
    Optional<Scale> longer = longRun(busy, profile, overall, phi, cut, blockSteps, base);
    double tail = LocalFalls.againstLevel(busy, profile, overall, phi, cut, base / blockSteps);
    double widened =
        Math.max(tail * tail * base, longer.map(sc -> Math.max(base, sc.perStep())).orElse(base));
    if (longer.isPresent()) {
      doubt =
          String.format(
              Locale.ROOT,
              "acceptance wanders over %s %.1fx more than its %s blocks show (correlations"
                  + " lasting hours, or regime switches): the tests allow for it, so a drop just"
                  + " past the floor takes longer to prove",
              longer.get().name(),
              longer.get().perStep() / Math.max(base, 1e-12),
              hours(Duration.ofMillis(longer.get().blockMillis())));
    }
    LocalFalls local = localFalls(busy, profile, overall, phi, cut, blockSteps);
    return new Learned(
        new NoiseModel(
            profile,
            overall,
            phi,
            tau2,
            widened,
            reference,
            history,
            active.size(),
            now,
            doubt,
            local.wander(),
            local.widening(),
            Math.max(1, widened / Math.max(base, 1e-12)),
            null));
  }

  /**
   * How long the recipe was watched: for each active sample the time since the one before when that
   * is at most {@link #HOLE}, otherwise {@code sampleEvery}.
   */
  static Duration history(List<StepSample> active, Duration sampleEvery) {
    Duration out = Duration.ZERO;
    Instant last = null;
    for (StepSample s : active) {
      Duration since = last == null ? sampleEvery : Duration.between(last, s.at());
      out = out.plus(since.isNegative() || since.compareTo(HOLE) > 0 ? sampleEvery : since);
      last = s.at();
    }
    return out;
  }

  /**
   * The local wander and the falls' widening ({@link LocalFalls}) of {@code blocks} (the samples
   * whose block is busy enough to count), or none without blocks.
   */
  static LocalFalls localFalls(
      List<StepSample> blocks,
      List<Double> profile,
      double overall,
      double phi,
      double cut,
      int blockSteps) {
    long spacing = spacing(blocks);
    if (spacing == Long.MAX_VALUE) {
      return new LocalFalls(null, 1, 0);
    }
    return LocalFalls.of(blocks, spacing, profile, overall, phi, cut, blockSteps);
  }

  /** Wander at a longer scale beyond this many times the blocks' puts the model in doubt. */
  static final double DOUBT = 2;

  /** Consecutive blocks summed into aggregates of this many blocks (1 h and 4 h at 15 min). */
  static final int[] SCALES = {4, 16};

  /** Aggregates needed for a scale to count. */
  static final int MIN_AGGREGATES = 12;

  /**
   * The long-run wander per step measured over aggregates of blocks ({@code name}: "4h"), each
   * block {@code blockMillis} long.
   */
  record Scale(String name, double perStep, long blockMillis) {}

  /**
   * The scale of {@link #SCALES} whose long-run wander per step is significantly (two standard
   * errors) more than {@link #DOUBT} times {@code base}, the blocks' figure; the largest such, or
   * empty. Runs of consecutive blocks (block samples are contiguous, non-overlapping increases) are
   * summed; their extra variance beyond φ's binomial part, times the steps they span, is the
   * wander's long-run variance per step at that scale: equal to the blocks' figure when the wander
   * decorrelates within a block, larger when it persists for hours. {@code blocks} are the samples
   * whose block is busy enough to count.
   */
  static Optional<Scale> longRun(
      List<StepSample> blocks,
      List<Double> profile,
      double overall,
      double phi,
      double cut,
      int blockSteps,
      double base) {
    if (blocks.size() < 2) {
      return Optional.empty();
    }
    long spacing = spacing(blocks);
    Optional<Scale> widest = Optional.empty();
    for (int m : SCALES) {
      List<Double> extras = new ArrayList<>();
      int i = 0;
      while (i + m <= blocks.size()) {
        double successes = 0;
        double trials = 0;
        double weighted = 0;
        boolean contiguous = true;
        boolean outlier = false;
        for (int j = i; j < i + m; j++) {
          StepSample b = blocks.get(j);
          if (j > i && Duration.between(blocks.get(j - 1).at(), b.at()).toMillis() != spacing) {
            contiguous = false;
            break;
          }
          double level = level(profile, overall, b.at());
          outlier |= Math.abs(b.blockSuccesses() / b.blockTrials() - level) > cut;
          successes += b.blockSuccesses();
          trials += b.blockTrials();
          weighted += b.blockTrials() * level;
        }
        if (!contiguous) {
          i++;
          continue;
        }
        i += m;
        if (!outlier) {
          double level = weighted / trials;
          double r = successes / trials - level;
          extras.add(r * r - phi * level * (1 - level) / trials);
        }
      }
      int k = extras.size();
      if (k < MIN_AGGREGATES) {
        continue;
      }
      double mean = extras.stream().mapToDouble(Double::doubleValue).sum() / k;
      double ss = 0;
      for (double e : extras) {
        ss += (e - mean) * (e - mean);
      }
      double se = Math.sqrt(ss / (k - 1) / k);
      double steps = (double) m * blockSteps;
      if (mean - DOUBT * base / steps > 2 * se) {
        Scale scale = new Scale(hours(Duration.ofMillis(spacing * m)), steps * mean, spacing);
        if (widest.isEmpty() || scale.perStep() > widest.get().perStep()) {
          widest = Optional.of(scale);
        }
      }
    }
    return widest;
  }

  /** The samples whose block is known and busy enough to count. */
  private static List<StepSample> blocks(List<StepSample> active) {
    List<StepSample> blocks = new ArrayList<>();
    for (StepSample s : active) {
      if (s.blockTrials() >= MIN_TRIALS && Double.isFinite(s.blockSuccesses())) {
        blocks.add(s);
      }
    }
    return blocks;
  }

  /** The smallest positive time between consecutive blocks (a block's length), or MAX_VALUE. */
  private static long spacing(List<StepSample> blocks) {
    long spacing = Long.MAX_VALUE;
    for (int i = 1; i < blocks.size(); i++) {
      long d = Duration.between(blocks.get(i - 1).at(), blocks.get(i).at()).toMillis();
      if (d > 0) {
        spacing = Math.min(spacing, d);
      }
    }
    return spacing;
  }

  /** φ ≥ 1 and τ² ≥ 0 minimizing Σ (r² − φ b − τ²)². */
  static double[] varianceFit(List<double[]> rows) {
    int n = rows.size();
    double sb = 0;
    double sy = 0;
    double sbb = 0;
    double sby = 0;
    for (double[] row : rows) {
      sb += row[0];
      sy += row[1];
      sbb += row[0] * row[0];
      sby += row[0] * row[1];
    }
    double det = n * sbb - sb * sb;
    double phi = det > 1e-30 * n * sbb ? (n * sby - sb * sy) / det : Double.NaN;
    double tau2 = Double.isNaN(phi) ? Double.NaN : (sy - phi * sb) / n;
    if (Double.isNaN(phi) || phi < 1 || tau2 < 0) {
      // On the boundary: try φ = 1 with the best τ², and τ² = 0 with the best φ; keep the better.
      double tauAtOne = Math.max(0, (sy - sb) / n);
      double phiAtZero = Math.max(1, sbb > 0 ? sby / sbb : 1);
      double errA = 0;
      double errB = 0;
      for (double[] row : rows) {
        errA += Math.pow(row[1] - row[0] - tauAtOne, 2);
        errB += Math.pow(row[1] - phiAtZero * row[0], 2);
      }
      return errA <= errB ? new double[] {1, tauAtOne} : new double[] {phiAtZero, 0};
    }
    return new double[] {phi, tau2};
  }

  private static List<Double> hourly(List<StepSample> active) {
    List<List<Double>> byHour = new ArrayList<>();
    List<Set<Long>> days = new ArrayList<>();
    for (int h = 0; h < 24; h++) {
      byHour.add(new ArrayList<>());
      days.add(new HashSet<>());
    }
    for (StepSample s : active) {
      var t = s.at().atZone(ZoneOffset.UTC);
      byHour.get(t.getHour()).add(s.proportion());
      days.get(t.getHour()).add(t.toLocalDate().toEpochDay());
    }
    List<Double> out = new ArrayList<>();
    for (int h = 0; h < 24; h++) {
      List<Double> values = byHour.get(h);
      out.add(
          values.size() >= 6 && days.get(h).size() >= 2
              ? median(values.stream().mapToDouble(Double::doubleValue).toArray())
              : null);
    }
    return out;
  }

  /** The learned level at {@code t}: the hour's, or {@code overall} without a profile. */
  static double level(List<Double> profile, double overall, Instant t) {
    if (profile == null) {
      return overall;
    }
    Double h = profile.get(t.atZone(ZoneOffset.UTC).getHour());
    return h == null ? overall : h;
  }

  private static double[] residuals(List<StepSample> active, List<Double> profile, double overall) {
    double[] r = new double[active.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = active.get(i).proportion() - level(profile, overall, active.get(i).at());
    }
    return r;
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  /** Median absolute deviation from the median. */
  static double mad(double[] values) {
    double m = median(values);
    double[] d = new double[values.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = Math.abs(values[i] - m);
    }
    return median(d);
  }

  private static String hours(Duration d) {
    return d.toMinutes() < 120 ? d.toMinutes() + "m" : d.toHours() + "h";
  }
}
