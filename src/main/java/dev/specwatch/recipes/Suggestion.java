package dev.specwatch.recipes;

import dev.specwatch.detect.Percentiles;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Threshold;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Thresholds proposed from a recipe's own hourly history: each line sits {@link #MARGIN} below the
 * 5th percentile of the hours that had drafts (a healthy recipe crosses it in well under 5 % of
 * hours, and then only by the margin), with a clear-above between the line and the 10th percentile
 * for hysteresis. Below {@link #MIN_HOURS} hours with drafts there is no proposal: a percentile of
 * a few hours is noise.
 */
public final class Suggestion {
  /** Hours with drafts needed before anything is proposed. */
  public static final int MIN_HOURS = 24;

  /** How far below the 5th percentile a line sits (relative). */
  public static final double MARGIN = 0.10;

  /** A proposed line and what it stands on. */
  public record Line(
      double below, Double clearAbove, double p5, double p10, double median, int hours) {}

  /**
   * @param acceptance empty when there is not enough data
   * @param positions by 0-based position, only those with enough data
   */
  public record Proposal(
      int hours, Line acceptance, Line meanAcceptedLength, Map<Integer, Line> positions) {
    public boolean enough() {
      return acceptance != null;
    }
  }

  private Suggestion() {}

  /**
   * @param acceptance hourly acceptance rates (NaN or null: no drafts that hour)
   * @param length hourly mean accepted length
   * @param positions hourly per-position acceptance, by position
   */
  public static Proposal propose(
      List<Double> acceptance, List<Double> length, Map<Integer, List<Double>> positions) {
    List<Double> a = finite(acceptance);
    if (a.size() < MIN_HOURS) {
      return new Proposal(a.size(), null, null, Map.of());
    }
    Line rate = line(a, 0, true);
    List<Double> l = finite(length);
    Line len = l.size() < MIN_HOURS ? null : line(l, 1, false);
    Map<Integer, Line> pos = new TreeMap<>();
    positions.forEach(
        (i, values) -> {
          List<Double> v = finite(values);
          if (v.size() >= MIN_HOURS) {
            pos.put(i, line(v, 0, false));
          }
        });
    return new Proposal(a.size(), rate, len, pos);
  }

  /** The line {@link #MARGIN} under p5, measured from {@code floor} (1 for accepted length). */
  static Line line(List<Double> values, double floor, boolean hysteresis) {
    double p5 = percentile(values, 0.05);
    double p10 = percentile(values, 0.10);
    double median = percentile(values, 0.5);
    double below = round2Down(floor + (p5 - floor) * (1 - MARGIN));
    Double clear = null;
    if (hysteresis) {
      double c = round2Down(Math.min(p10, below + (p5 - below) * 2));
      clear = c > below ? c : null;
    }
    return new Line(below, clear, p5, p10, median, values.size());
  }

  /** The {@code q}-quantile of {@code values} ({@link Percentiles#of}); NaN for none. */
  public static double percentile(List<Double> values, double q) {
    return Percentiles.of(values.stream().mapToDouble(Double::doubleValue).toArray(), q);
  }

  static double round2Down(double v) {
    return Math.floor(v * 100 + 1e-9) / 100;
  }

  private static List<Double> finite(List<Double> values) {
    return values.stream().filter(v -> v != null && Double.isFinite(v)).toList();
  }

  /** The thresholds block for a policy, YAML. */
  public static String yaml(Proposal p) {
    return yaml(p, Policy.Ceilings.none());
  }

  /**
   * The thresholds block for a policy, YAML, keeping the policy's {@code ceilings} (lines the value
   * must stay under, which suggest does not propose) in their keys.
   */
  public static String yaml(Proposal p, Policy.Ceilings ceilings) {
    StringBuilder out = new StringBuilder("thresholds:\n");
    out.append(
        String.format(
            Locale.ROOT,
            "  acceptance_rate: {below: %.2f%s%s}%n",
            p.acceptance().below(),
            p.acceptance().clearAbove() == null
                ? ""
                : String.format(Locale.ROOT, ", clear_above: %.2f", p.acceptance().clearAbove()),
            ceiling(ceilings.acceptanceRate())));
    String lengthCeiling = ceiling(ceilings.meanAcceptedLength());
    if (p.meanAcceptedLength() != null) {
      out.append(
          String.format(
              Locale.ROOT,
              "  mean_accepted_length: {below: %.2f%s}%n",
              p.meanAcceptedLength().below(),
              lengthCeiling));
    } else if (!lengthCeiling.isEmpty()) {
      out.append("  mean_accepted_length: {").append(lengthCeiling.substring(2)).append("}\n");
    }
    if (!p.positions().isEmpty()) {
      out.append("  position_acceptance:\n");
      p.positions()
          .forEach(
              (i, l) ->
                  out.append(
                      String.format(Locale.ROOT, "    \"%d\": {below: %.2f}%n", i, l.below())));
    }
    return out.toString();
  }

  /** {@code ", above: 0.98, clear_below: 0.95"} (with its severity), or "" without a ceiling. */
  private static String ceiling(Optional<Threshold> t) {
    if (t.isEmpty()) {
      return "";
    }
    Threshold c = t.get();
    return String.format(Locale.ROOT, ", above: %s", plain(c.level()))
        + (c.clearAt().isPresent()
            ? String.format(Locale.ROOT, ", clear_below: %s", plain(c.clearAt().getAsDouble()))
            : "")
        + c.severity().map(sev -> ", severity: " + sev.key()).orElse("");
  }

  private static String plain(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
