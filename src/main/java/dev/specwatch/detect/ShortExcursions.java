package dev.specwatch.detect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
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
 * so the points per query are those of the samples), among windows with at least half the reference
 * traffic (so a quiet hour's binomial noise does not set the record). Each sample's low over its
 * learned level, minus 1, is a depth; samples whose block is further below the level than {@code
 * incident} (a sustained drop, what the rule pages for: not a short excursion) are set aside, and
 * of runs of neighbouring samples only the deepest counts (one excursion seen by two samples is
 * one). The record is the k-th deepest, k one per started week of active history: the deepest of a
 * week's, so that one past incident shorter than a block holds pages for at most the longest
 * length, and a longer history does not make the record more extreme.
 */
public final class ShortExcursions {
  /** The window lengths recorded, at most: past the longest, no page is held. */
  public static final List<Duration> LENGTHS =
      List.of(Duration.ofMinutes(2), Duration.ofMinutes(5), Duration.ofMinutes(10));

  /** Windows with fewer trials than this share of the reference traffic's do not count. */
  public static final double MIN_TRAFFIC = 0.5;

  private static final Duration WEEK = Duration.ofDays(7);

  private ShortExcursions() {}

  /** The lengths recorded for an evaluation step: whole numbers of steps, at least one. */
  public static List<Duration> lengths(Duration step) {
    return LENGTHS.stream()
        .filter(l -> l.compareTo(step) >= 0 && l.toMillis() % step.toMillis() == 0)
        .toList();
  }

  /** The fewest trials a window of {@code length} needs to count. */
  public static long minTrials(NoiseModel m, Duration length, Duration step) {
    return (long)
        Math.ceil(MIN_TRAFFIC * m.referenceTrials() * length.toMillis() / step.toMillis());
  }

  /**
   * The record at one length, or null when no sample counts.
   *
   * @param lows per sample time, the lowest acceptance of a window of {@code length} ending within
   *     the sample
   * @param blocks per sample time, the acceptance of the block ending there (absent: unknown)
   * @param sampleEvery the time between samples
   * @param incident a block this far below its learned level, relatively (0.2), is an incident
   */
  public static NoiseModel.ShortExcursion of(
      Duration length,
      Map<Instant, Double> lows,
      Map<Instant, Double> blocks,
      NoiseModel m,
      Duration sampleEvery,
      double incident) {
    NavigableMap<Instant, Double> depths = new TreeMap<>();
    lows.forEach(
        (t, low) -> {
          double level = m.levelAt(t);
          Double block = blocks.get(t);
          if (Double.isFinite(low)
              && level > 0
              && (block == null || !(block < level * (1 - incident)))) {
            depths.put(t, Math.max(-0.99, Math.min(0, low / level - 1)));
          }
        });
    List<Double> deepest = new ArrayList<>();
    for (Map.Entry<Instant, Double> e : depths.entrySet()) {
      Double before = depths.get(e.getKey().minus(sampleEvery));
      Double after = depths.get(e.getKey().plus(sampleEvery));
      double d = e.getValue();
      if ((before == null || d <= before) && (after == null || d < after)) {
        deepest.add(d);
      }
    }
    if (deepest.isEmpty()) {
      return null;
    }
    deepest.sort(null);
    int k = (int) Math.max(1, Math.ceil((double) m.history().toMillis() / WEEK.toMillis()));
    return new NoiseModel.ShortExcursion(length, deepest.get(Math.min(k, deepest.size()) - 1));
  }
}
