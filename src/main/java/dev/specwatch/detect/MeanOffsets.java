package dev.specwatch.detect;

import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The history's mean by hour against its learned level ({@link NoiseModel#meanLevelAt}): the level
 * is a median, which a history's excursions leave where it is while they pull its mean under it;
 * the change rule's tests sum steps, so the normal they compare with is the mean.
 * docs/DETECTION.md, "The floor from the mean".
 */
final class MeanOffsets {
  private MeanOffsets() {}

  /**
   * How far under the learned level the history's mean lay, by UTC hour (relative, ≤ 0): for each
   * day and hour the ratio of its successes to the level's expectation of them, minus 1, the hour
   * before and the hour after counted with it (three hours' noise is a third of one's); an hour's
   * offset is the trimmed mean of its days' (the lowest and highest quarter of days left out, so an
   * incident on one day of seven moves nothing), and an hour seen on fewer than two days takes the
   * whole days' figure, trimmed the same way. Every step counts, excursions included: they are what
   * pulls the mean under the median. Above the level: 0 (the floor is never raised by it).
   * docs/DETECTION.md, "The floor from the mean".
   */
  static List<Double> of(List<StepSample> active, List<Double> profile, double overall) {
    Map<Long, double[]> byDay = new TreeMap<>();
    List<Map<Long, double[]>> byHour = new ArrayList<>();
    for (int h = 0; h < 24; h++) {
      byHour.add(new HashMap<>());
    }
    for (StepSample s : active) {
      var t = s.at().atZone(ZoneOffset.UTC);
      long day = t.toLocalDate().toEpochDay();
      double expected = s.trials() * NoiseFit.level(profile, overall, s.at());
      double[] whole = byDay.computeIfAbsent(day, d -> new double[2]);
      whole[0] += s.successes();
      whole[1] += expected;
      // Each hour's cells take the hours either side too: a third of the noise of one hour's.
      for (int h = t.getHour() - 1; h <= t.getHour() + 1; h++) {
        double[] cell = byHour.get(Math.floorMod(h, 24)).computeIfAbsent(day, d -> new double[2]);
        cell[0] += s.successes();
        cell[1] += expected;
      }
    }
    double whole = Math.min(0, trimmedMean(byDay.values()));
    List<Double> out = new ArrayList<>();
    for (int h = 0; h < 24; h++) {
      var days = byHour.get(h).values();
      out.add(days.size() >= 2 ? Math.min(0, trimmedMean(days)) : whole);
    }
    return out;
  }

  /**
   * The mean of {@code cells}' ratios ({successes, expected}) minus 1, the lowest and highest
   * quarter left out; 0 without cells.
   */
  static double trimmedMean(Collection<double[]> cells) {
    double[] ratios =
        cells.stream().filter(c -> c[1] > 0).mapToDouble(c -> c[0] / c[1] - 1).sorted().toArray();
    int n = ratios.length;
    int cut = n / 4;
    double sum = 0;
    for (int i = cut; i < n - cut; i++) {
      sum += ratios[i];
    }
    return n - 2 * cut > 0 ? Math.max(-0.99, sum / (n - 2 * cut)) : 0;
  }
}
