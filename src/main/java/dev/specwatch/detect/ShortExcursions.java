package dev.specwatch.detect;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The record of how deep a recipe's healthy history went over short windows (docs/DETECTION.md,
 * "Short excursions"): for each of a few window lengths, the deepest window's acceptance against
 * the learned level in a typical week of the history. A client whose outputs the draft cannot
 * predict, running for minutes, pulls acceptance far below the floor and back; the tests' Gaussian
 * model cannot tell its first minutes from a drop's, but the history's record of such excursions
 * can.
 *
 * <p>The learner asks Prometheus, at each of its samples, for the lowest acceptance of a window of
 * each length ending at an evaluation step within the sample ({@code min_over_time} of a subquery,
 * so the points per query are those of the samples), a window with fewer trials than half the
 * reference traffic's raised by its binomial noise past a window's at that line ({@link #counted},
 * so a quiet hour's noise does not set the record). Each sample's low over its learned level, minus
 * 1, is a depth; samples in a run of blocks further below the level than {@code incident} lasting
 * as long as the record's longest length (a sustained drop, what the rule pages for whatever the
 * record: not an excursion) are set aside ({@link #incidents}). The history is cut into {@link
 * #PERIOD}s, and each period's deepest depth is one draw of an extreme: the record is their return
 * level at the rule's {@code false_alarm_interval}, the depth a period's deepest excursion passes
 * once per interval, from a Gumbel distribution fitted by moments (Gumbel 1958; scale s√6/π,
 * location mean − γ·scale), and never shallower than the deepest seen. A week's deepest is passed
 * by the next week's half the time; what the rule must not page on is the depth healthy traffic
 * reaches once per interval. With fewer than {@link #MIN_PERIODS} periods the deepest seen is the
 * record. Only the busy samples (their block at half the reference traffic) make periods; a quiet
 * sample's depth sets the record where deeper than that (since 2026-12-07).
 */
public final class ShortExcursions {
  /**
   * The window lengths recorded, at most: past the longest, no page is held. Those past {@link
   * #CLUSTERS_FROM} are the record of clusters: they count only where they are at least as deep as
   * the floor, and those past {@link #RUNS_FROM} only where at least as deep as the backstop's line
   * ({@link NoiseModel#shortExcursionDepth}).
   */
  public static final List<Duration> LENGTHS =
      List.of(
          Duration.ofMinutes(2),
          Duration.ofMinutes(5),
          Duration.ofMinutes(10),
          Duration.ofMinutes(20),
          Duration.ofMinutes(30),
          Duration.ofMinutes(60));

  /**
   * Windows longer than this are runs (a job, a backfill, a suite of evaluations): their record
   * holds a page only where the history's runs went under the backstop's line ({@link #GROSS}
   * floors below the level), so hours that only wander past the floor (a weekday tenant, a slow
   * mix) never hold a drop for an hour (docs/DETECTION.md, "A record of runs"). Past it an
   * excursion is held only as deep as the record itself, not composed with the floor ({@link
   * NoiseModel#withinShortExcursions}).
   */
  public static final Duration RUNS_FROM = Duration.ofMinutes(30);

  /**
   * The backstop's line, as a multiple of {@code min_relative_drop} below the learned level (0.20
   * below at a 10 % floor): the change rule's gross drop, and the depth the record of runs must
   * reach to count.
   */
  public static final double GROSS = 2;

  /**
   * Windows longer than this are clusters of excursions (bursts that overlap, a load test's stages
   * back to back): their record holds a page only where the history's clusters went at least as
   * deep as the floor, so a history without them (its longer windows wander less than the floor)
   * costs a drop nothing past this length (docs/DETECTION.md, "Short excursions").
   */
  public static final Duration CLUSTERS_FROM = Duration.ofMinutes(10);

  /**
   * The record looks back at least this far, whatever the learned history's length: excursions
   * follow the week (docs/DETECTION.md, "Short excursions").
   */
  public static final Duration LOOKBACK = Duration.ofDays(7);

  /**
   * The share of the reference traffic that makes a window or a block busy: a window with fewer
   * trials counts raised by its noise ({@link #counted}), a sample whose block has fewer is quiet
   * and makes no period.
   */
  public static final double MIN_TRAFFIC = 0.5;

  private ShortExcursions() {}

  /**
   * The lengths recorded for an evaluation step: whole numbers of steps, at least one; none where
   * no length up to {@link #CLUSTERS_FROM} is (a record of clusters alone has no short excursions
   * to begin from).
   */
  public static List<Duration> lengths(Duration step) {
    List<Duration> whole =
        LENGTHS.stream()
            .filter(l -> l.compareTo(step) >= 0 && l.toMillis() % step.toMillis() == 0)
            .toList();
    return whole.isEmpty() || whole.get(0).compareTo(CLUSTERS_FROM) > 0 ? List.of() : whole;
  }

  /** The fewest trials a window of {@code length} needs to count. */
  public static long minTrials(NoiseModel m, Duration length, Duration step) {
    return (long)
        Math.ceil(MIN_TRAFFIC * m.referenceTrials() * length.toMillis() / step.toMillis());
  }

  /** The history is cut into periods of this length, each one draw of the deepest excursion. */
  static final Duration PERIOD = Duration.ofHours(6);

  /** A period counts with this many samples (an hour of busy windows at 5-minute samples). */
  static final int MIN_PERIOD_SAMPLES = 12;

  /** Fewer periods than this (two days) give no fit: the deepest seen is the record. */
  static final int MIN_PERIODS = 8;

  /** The Euler–Mascheroni constant: the mean of the standard Gumbel distribution. */
  private static final double EULER = 0.5772156649;

  /**
   * How far a window with fewer trials than the half line counts raised, per 1/√trials: c =
   * z·√(φ·p(1 − p)), with φ the model's overdispersion, p its level and z the normal quantile
   * passed once in {@code interval} by windows of {@code length} (3.91 for 2 minutes in 30 days,
   * 3.20 for 30). A window of D trials counts raised by c·(1/√D − 1/√N) (N the half line; nothing
   * at or above it), its noise's once-per-interval extreme beyond a window's at the line: pure
   * noise at any traffic, so counted, passes once per interval the depth noise at the line does.
   */
  public static double quietNoise(NoiseModel m, Duration length, Duration interval) {
    double p = m.level() > 0 && m.level() < 1 ? m.level() : 0.5;
    double z =
        Calibration.normalQuantile(
            1 - Math.min(0.5, (double) length.toMillis() / interval.toMillis()));
    return z * Math.sqrt(m.phi() * p * (1 - p));
  }

  /**
   * A window's acceptance {@code low} of {@code trials} trials as the record counts it: raised by
   * {@code c}·(1/√trials − 1/√{@code line}) where under the half line ({@link #quietNoise}); the
   * learner's query does the same in PromQL.
   */
  public static double counted(double low, double trials, double c, double line) {
    return low + Math.max(0, c / Math.sqrt(trials) - c / Math.sqrt(line));
  }

  /**
   * The record at one length, or null when no period counts.
   *
   * @param lows per sample time, the lowest acceptance of a window of {@code length} ending within
   *     the sample
   * @param blocks per sample time, the acceptance of the block ending there (absent: unknown)
   * @param incident a run of blocks this far below its learned level, relatively (0.2), spanning
   *     {@link #INCIDENT_SPAN} is an incident
   * @param interval the rule's {@code false_alarm_interval}: the record is the depth passed once in
   *     it
   */
  public static NoiseModel.ShortExcursion of(
      Duration length,
      Map<Instant, Double> lows,
      Map<Instant, Double> blocks,
      NoiseModel m,
      double incident,
      Duration interval) {
    return of(length, lows, Map.of(), blocks, m, incident, interval);
  }

  /**
   * The record at one length, counting the quiet hours too: {@code lows} are the samples at half
   * the reference traffic, which make the periods and their fit as in {@link #of(Duration, Map,
   * Map, NoiseModel, double, Duration)}; {@code quiet} are the other samples' lows, each window
   * raised by its binomial noise past the half line's ({@link #counted}). A quiet low deeper than
   * the fit sets the record (the deepest seen), but quiet periods are no draws of the fit: their
   * deepest is mostly the night's noise, and as draws they made the record shallower by day
   * (docs/DETECTION.md, "Quiet windows counted").
   */
  public static NoiseModel.ShortExcursion of(
      Duration length,
      Map<Instant, Double> lows,
      Map<Instant, Double> quiet,
      Map<Instant, Double> blocks,
      NoiseModel m,
      double incident,
      Duration interval) {
    java.util.NavigableMap<Instant, Instant> incidents = incidents(blocks, m, incident);
    double[] falls = maxima(lows, m, incidents);
    if (falls.length == 0) {
      return null;
    }
    double periodsPerInterval = (double) interval.toMillis() / PERIOD.toMillis();
    double record = level(falls, periodsPerInterval);
    for (Map.Entry<Instant, Double> q : quiet.entrySet()) {
      double fall = fall(q.getKey(), q.getValue(), m, incidents);
      if (!Double.isNaN(fall)) {
        record = Math.max(record, fall);
      }
    }
    return new NoiseModel.ShortExcursion(length, -Math.min(0.99, record));
  }

  /**
   * The deepest fall of each period with {@link #MIN_PERIOD_SAMPLES} samples of {@code lows}
   * outside {@code incidents}.
   */
  private static double[] maxima(
      Map<Instant, Double> lows, NoiseModel m, java.util.NavigableMap<Instant, Instant> incidents) {
    Map<Long, double[]> periods = new TreeMap<>(); // period → {deepest (as a positive fall), n}
    lows.forEach(
        (t, low) -> {
          double fall = fall(t, low, m, incidents);
          if (!Double.isNaN(fall)) {
            double[] p = periods.computeIfAbsent(period(t), k -> new double[2]);
            p[0] = Math.max(p[0], Math.min(0.99, Math.max(0, fall)));
            p[1]++;
          }
        });
    return periods.values().stream()
        .filter(p -> p[1] >= MIN_PERIOD_SAMPLES)
        .mapToDouble(p -> p[0])
        .toArray();
  }

  /**
   * How far {@code low}, a sample's lowest window at {@code t}, fell below the learned level there
   * (0.3: 30 % below), or NaN where it does not count (unknown, no level, or inside an incident).
   */
  private static double fall(
      Instant t, double low, NoiseModel m, java.util.NavigableMap<Instant, Instant> incidents) {
    double level = m.levelAt(t);
    return Double.isFinite(low) && level > 0 && !within(incidents, t)
        ? 1 - low / level
        : Double.NaN;
  }

  /**
   * The depth {@code falls}, each a period's deepest, pass once in {@code draws} periods: their
   * return level, never shallower than the deepest seen; with fewer than {@link #MIN_PERIODS} the
   * deepest seen.
   */
  private static double level(double[] falls, double draws) {
    double deepest = Arrays.stream(falls).max().orElseThrow();
    return falls.length >= MIN_PERIODS && draws > 1
        ? Math.max(deepest, returnLevel(falls, draws))
        : deepest;
  }

  private static long period(Instant t) {
    return Math.floorDiv(t.toEpochMilli(), PERIOD.toMillis());
  }

  /**
   * The incidents set aside, each from its first block's time to its last: runs of blocks further
   * below their learned level than {@code incident} that span {@link #INCIDENT_SPAN} or more (a
   * block at or above the line ends a run; an absent one does not, and the samples between the
   * blocks of the days before the learned history, 15 minutes apart, are inside it). A drop that
   * stayed under the backstop's line that long is one the rule pages whatever the record says (the
   * backstop waits at most the record's longest length); a shorter run came back on its own, an
   * excursion like any other, however deep (docs/DETECTION.md, "Short excursions"). Until
   * 2026-12-06 every block under the line was set aside, so the deepest runs of a history whose
   * excursions last a quarter of an hour or more were left out of its record.
   */
  static java.util.NavigableMap<Instant, Instant> incidents(
      Map<Instant, Double> blocks, NoiseModel m, double incident) {
    java.util.NavigableMap<Instant, Instant> out = new TreeMap<>();
    List<Instant> run = new java.util.ArrayList<>();
    Runnable close =
        () -> {
          if (!run.isEmpty()
              && Duration.between(run.get(0), run.get(run.size() - 1)).compareTo(INCIDENT_SPAN)
                  >= 0) {
            out.put(run.get(0), run.get(run.size() - 1));
          }
          run.clear();
        };
    for (Map.Entry<Instant, Double> b : new TreeMap<>(blocks).entrySet()) {
      double level = m.levelAt(b.getKey());
      if (b.getValue() < level * (1 - incident)) {
        run.add(b.getKey());
      } else {
        close.run();
      }
    }
    close.run();
    return out;
  }

  private static boolean within(java.util.NavigableMap<Instant, Instant> incidents, Instant t) {
    Map.Entry<Instant, Instant> e = incidents.floorEntry(t);
    return e != null && !e.getValue().isBefore(t);
  }

  /**
   * A run of blocks under the backstop's line spanning this long is an incident, set aside from the
   * record: the record's longest length, past which no page is held.
   */
  static final Duration INCIDENT_SPAN = LENGTHS.get(LENGTHS.size() - 1);

  /**
   * The level that maxima like {@code maxima} pass once in {@code periods} draws, from a Gumbel
   * distribution fitted by moments: a + b·(−ln(−ln(1 − 1/periods))), b = s√6/π, a = mean − γb.
   */
  static double returnLevel(double[] maxima, double periods) {
    double mean = Arrays.stream(maxima).average().orElseThrow();
    double ss = 0;
    for (double x : maxima) {
      ss += (x - mean) * (x - mean);
    }
    double scale = Math.sqrt(ss / (maxima.length - 1)) * Math.sqrt(6) / Math.PI;
    double location = mean - EULER * scale;
    return location + scale * -Math.log(-Math.log(1 - 1 / periods));
  }
}
