package dev.specwatch.detect;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/**
 * What a recipe's healthy acceptance looks like at the evaluation step, learned from its history
 * ({@link NoiseFit}): the expected level by hour of day (UTC) and the variance of one step's
 * proportion, which is more than binomial. For a step with {@code n} trials at level {@code p}:
 *
 * <pre>
 *   Var(p̂) = φ · p(1−p)/n + λ
 * </pre>
 *
 * φ ≥ 1 is the overdispersion of the prompt mix within a step (requests differ in acceptance) and λ
 * the wander of the mix between steps that more traffic does not average away, counted at its
 * long-run (block) size: a CUSUM adds steps up, so wander that persists over many steps counts more
 * than its one-step variance τ² says. λ = max(τ², m · τ_m²) with τ_m² the extra variance of blocks
 * of m steps.
 *
 * @param hourly expected level per UTC hour 0..23; null entries fall back to {@code level}; null
 *     when the history shows no time-of-day pattern
 * @param level the overall (median) level
 * @param tau2 the one-step extra variance τ²
 * @param wander the long-run extra variance per step λ
 * @param referenceTrials a high (90th percentile) count of trials per step, at which thresholds are
 *     calibrated: busier steps carry more information, so this keeps false alarms at or below the
 *     design rate
 * @param history how much active history the fit saw
 * @param points how many samples it used
 * @param doubt why the model is in doubt, in words: the history wanders over hours significantly
 *     more than its blocks say (long correlations, regime switches); null when the model explains
 *     the history at every scale. Informative: {@code wander} is not widened (docs/DETECTION.md,
 *     "The model in doubt")
 * @param localWander the same long-run extra variance per step as {@code wander}, but of blocks
 *     against the level of the hour before them ({@link LocalReference}) rather than against the
 *     learned level: what the test of a sudden drop must allow for; small where the wander is slow.
 *     Null when the history did not say (a model learned before it was measured): {@code wander}
 * @param fallWidening how many times wider than the model the history's falls from the hour before
 *     are ({@link LocalFalls}: a graded doubt, at least 1); the sudden-drop test's variance is
 *     widened by its square ({@link #local}). Null in a model learned before it was measured: 1
 * @param wanderWidening how many times the blocks' long-run wander the history wanders over hours
 *     (1 h or 4 h at the daemon's step), where significantly more, or the square of how much
 *     heavier the tail of its blocks' excursions below the level is than the normal's, whichever is
 *     more: a graded doubt, at least 1, by which {@code wander} is already widened
 *     (docs/DETECTION.md, "The model in doubt"). Null in a model learned before it was measured: 1
 * @param shortExcursions how deep the history's short windows went below the learned level, by
 *     window length, the shortest first ({@link ShortExcursion}): a page on an excursion no longer
 *     than the longest of them must go deeper than the history's own would with the level at the
 *     floor (docs/DETECTION.md, "Short excursions"). Null or empty when not measured: no such check
 */
public record NoiseModel(
    List<Double> hourly,
    double level,
    double phi,
    double tau2,
    double wander,
    double referenceTrials,
    Duration history,
    int points,
    Instant learnedAt,
    String doubt,
    Double localWander,
    Double fallWidening,
    Double wanderWidening,
    List<ShortExcursion> shortExcursions) {

  /**
   * How deep the healthy history's windows of {@code length} go below the learned level: {@code
   * depth} is a window's acceptance over its learned level, minus 1 (−0.3: 30 % below), that the
   * deepest of a 6-hour period passes about once per {@code false_alarm_interval} ({@link
   * ShortExcursions}; docs/DETECTION.md, "Short excursions").
   */
  public record ShortExcursion(Duration length, double depth) {
    public ShortExcursion {
      if (length == null || length.isNegative() || length.isZero() || !(depth <= 0 && depth > -1)) {
        throw new IllegalArgumentException("invalid short excursion");
      }
    }
  }

  /**
   * A model without a measured widening of its falls or of its wander over hours (1 each) or a
   * record of its short excursions.
   */
  public NoiseModel(
      List<Double> hourly,
      double level,
      double phi,
      double tau2,
      double wander,
      double referenceTrials,
      Duration history,
      int points,
      Instant learnedAt,
      String doubt,
      Double localWander) {
    this(
        hourly,
        level,
        phi,
        tau2,
        wander,
        referenceTrials,
        history,
        points,
        learnedAt,
        doubt,
        localWander,
        null,
        null,
        null);
  }

  /** A model without a measured local wander (it falls back to {@code wander}). */
  public NoiseModel(
      List<Double> hourly,
      double level,
      double phi,
      double tau2,
      double wander,
      double referenceTrials,
      Duration history,
      int points,
      Instant learnedAt,
      String doubt) {
    this(
        hourly, level, phi, tau2, wander, referenceTrials, history, points, learnedAt, doubt, null);
  }

  /** A model the history explains (no doubt). */
  public NoiseModel(
      List<Double> hourly,
      double level,
      double phi,
      double tau2,
      double wander,
      double referenceTrials,
      Duration history,
      int points,
      Instant learnedAt) {
    this(hourly, level, phi, tau2, wander, referenceTrials, history, points, learnedAt, null);
  }

  public NoiseModel {
    hourly =
        hourly == null
            ? null
            : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(hourly));
    shortExcursions =
        shortExcursions == null
            ? null
            : shortExcursions.stream()
                .sorted(java.util.Comparator.comparing(ShortExcursion::length))
                .toList();
    if (!(phi >= 1)
        || !(tau2 >= 0)
        || !(wander >= 0)
        || !(referenceTrials > 0)
        || (localWander != null && !(localWander >= 0))
        || (fallWidening != null && !(fallWidening >= 1))
        || (wanderWidening != null && !(wanderWidening >= 1))) {
      throw new IllegalArgumentException("invalid noise model");
    }
  }

  /**
   * A binomial model with overdispersion {@code phi}: for thresholds before anything is learned.
   */
  public static NoiseModel binomial(double phi, double referenceTrials) {
    return new NoiseModel(null, Double.NaN, phi, 0, 0, referenceTrials, Duration.ZERO, 0, null);
  }

  /** The expected healthy level at {@code t}. */
  public double levelAt(Instant t) {
    if (hourly != null) {
      Double h = hourly.get(t.atZone(ZoneOffset.UTC).getHour());
      if (h != null) {
        return h;
      }
    }
    return level;
  }

  /** Var(p̂) of one step with {@code trials} trials at level {@code p}, wander at long run. */
  public double variance(double p, double trials) {
    double q = Math.min(Math.max(p, 1e-6), 1 - 1e-6);
    return phi * q * (1 - q) / trials + Math.max(tau2, wander);
  }

  /** The widening of the wander over hours: 1 where the model did not measure it. */
  public double hoursWidening() {
    return wanderWidening == null ? 1 : wanderWidening;
  }

  /** The widening of the sudden-drop test's variance: 1 where the model did not measure it. */
  public double widening() {
    return fallWidening == null ? 1 : fallWidening;
  }

  /**
   * This model as the test of a sudden drop sees it: the step's deviation from the recent past,
   * whose long-run wander is {@code localWander} (or {@code wander} when unknown), the whole
   * variance widened by the square of {@link #widening}, so that the history's own falls from the
   * hour before are no more evidence than the model's (docs/DETECTION.md, "Sudden drops").
   */
  public NoiseModel local() {
    double w2 = widening() * widening();
    double lw = localWander == null ? wander : localWander;
    if (localWander == null && w2 == 1) {
      return this;
    }
    return new NoiseModel(
        hourly,
        level,
        phi * w2,
        tau2 * w2,
        lw * w2,
        referenceTrials,
        history,
        points,
        learnedAt,
        doubt,
        lw * w2,
        fallWidening,
        wanderWidening,
        shortExcursions);
  }

  /** This model with {@code record} as the record of its short excursions. */
  public NoiseModel withShortExcursions(List<ShortExcursion> record) {
    return new NoiseModel(
        hourly,
        level,
        phi,
        tau2,
        wander,
        referenceTrials,
        history,
        points,
        learnedAt,
        doubt,
        localWander,
        fallWidening,
        wanderWidening,
        record);
  }

  /**
   * How deep the history's windows of about {@code length} went (a relative deviation, ≤ 0): the
   * shortest record's for an excursion shorter than it, linear between two records' lengths, and
   * NaN for an excursion longer than the longest record that counts, or without a record. The
   * records past {@link ShortExcursions#CLUSTERS_FROM} count only while each is at least {@code
   * minRelativeDrop} deep (the history's clusters went under the floor), those past {@link
   * ShortExcursions#RUNS_FROM} only while at least {@link ShortExcursions#GROSS} times that (its
   * runs went under the backstop's line).
   */
  public double shortExcursionDepth(Duration length, double minRelativeDrop) {
    if (shortExcursions == null || shortExcursions.isEmpty()) {
      return Double.NaN;
    }
    ShortExcursion first = shortExcursions.get(0);
    if (length.compareTo(first.length()) <= 0) {
      return first.depth();
    }
    for (int i = 1; i < shortExcursions.size(); i++) {
      ShortExcursion a = shortExcursions.get(i - 1);
      ShortExcursion b = shortExcursions.get(i);
      if (b.length().compareTo(ShortExcursions.CLUSTERS_FROM) > 0 && b.depth() > -minRelativeDrop) {
        return Double.NaN; // no cluster of the history's went under the floor this long
      }
      if (b.length().compareTo(ShortExcursions.RUNS_FROM) > 0
          && b.depth() > -ShortExcursions.GROSS * minRelativeDrop) {
        return Double.NaN; // no run of the history's went under the backstop's line this long
      }
      if (length.compareTo(b.length()) <= 0) {
        double x =
            (double) (length.toMillis() - a.length().toMillis())
                / (b.length().toMillis() - a.length().toMillis());
        return a.depth() + x * (b.depth() - a.depth());
      }
    }
    return Double.NaN;
  }

  /**
   * Whether an excursion of {@code length} whose acceptance is {@code depth} relative to the
   * learned level (−0.3: 30 % below) is no deeper than the history's own short excursions would be
   * with the level at the floor {@code minRelativeDrop} below: (1 − r)(1 + R) − 1, R the record for
   * its length ({@link #shortExcursionDepth}). Such an excursion proves nothing the history did not
   * show while healthy, so neither test of the change rule pages on it yet (docs/DETECTION.md,
   * "Short excursions"). Past {@link ShortExcursions#RUNS_FROM} (the record of runs) no deeper than
   * R itself, not composed with the floor. False beyond the longest record, and past {@link
   * ShortExcursions#CLUSTERS_FROM} beyond the last record of clusters at least as deep as the
   * floor.
   */
  public boolean withinShortExcursions(Duration length, double depth, double minRelativeDrop) {
    double record = shortExcursionDepth(length, minRelativeDrop);
    if (!Double.isFinite(record)) {
      return false;
    }
    // Past half an hour (a record of runs) only as deep as the history's own runs went at its
    // normal level: a level at the floor has had its half hour of testing, and a run on top of it
    // is paged as before the record of runs existed.
    return length.compareTo(ShortExcursions.RUNS_FROM) > 0
        ? depth > record
        : depth > (1 - minRelativeDrop) * (1 + record) - 1;
  }
}
