package dev.specwatch.server;

import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Threshold;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The recipe page's charts over time: acceptance (with its threshold), mean accepted length (with
 * its threshold, on 1 to k + 1) and acceptance per draft position (with theirs), each with the
 * recipe's alerts marked where they fired and resolved.
 */
final class RecipeChartViews {
  private RecipeChartViews() {}

  static final List<Duration> SPANS =
      List.of(Duration.ofHours(6), Duration.ofHours(24), Duration.ofDays(7));

  private static final String[] COLOURS = {"#0052cc", "#00875a", "#ff8b00", "#6554c0", "#00b8d9"};

  /** The span asked for ({@code ?span=24h}); 6 h when absent or not one of 6h, 24h, 7d. */
  static Duration span(String asked) {
    if (asked == null) {
      return SPANS.get(0);
    }
    return Durations.parse(asked).filter(SPANS::contains).orElse(SPANS.get(0));
  }

  /** Links to the other spans: {@code [{label, href, current}]}. */
  static List<Map<String, Object>> links(String recipe, Duration current) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Duration d : SPANS) {
      Map<String, Object> m = new LinkedHashMap<>();
      String label = d.toHours() < 24 ? d.toHours() + "h" : d.toHours() == 24 ? "24h" : "7d";
      m.put("label", label);
      m.put("href", WebPages.href(recipe) + "?span=" + label);
      m.put("current", d.equals(current));
      out.add(m);
    }
    return out;
  }

  /**
   * @param now the right edge: the points are up to 30 s old (cached), the alert marks are not, so
   *     an alert that fired since they were read is still drawn
   */
  static List<String> svgs(ChartData c, Policy p, List<Transition> history, Instant now) {
    Instant to = now.isAfter(c.to()) ? now : c.to();
    Instant from = to.minus(Duration.between(c.from(), c.to()));
    // A young recipe's minutes fill the chart instead of a sliver at the right edge of 6 hours:
    // the span starts a step before its first point (at least 10 minutes wide).
    Instant first = firstPoint(c);
    if (first != null) {
      Instant start = first.minus(c.step());
      Instant latest = to.minus(Duration.ofMinutes(10));
      start = start.isAfter(latest) ? latest : start;
      if (start.isAfter(from)) {
        from = start;
      }
    }
    List<TimeChart.Mark> marks = new ArrayList<>();
    for (Transition t : history) {
      if (t.recipe().equals(p.recipe())) {
        boolean fired = t.kind() == Transition.Kind.FIRING;
        marks.add(
            new TimeChart.Mark(
                t.at(), fired, (fired ? "fired: " : "resolved: ") + t.rule() + " at " + t.at()));
      }
    }
    c.kChanges().forEach(change -> marks.add(TimeChart.Mark.kChange(change)));
    int k = p.numSpeculativeTokens();
    List<String> out = new ArrayList<>();
    out.add(
        new TimeChart(
                "Acceptance rate, " + Durations.format(c.step()) + " steps",
                from,
                to,
                0,
                1,
                v -> String.format(Locale.ROOT, "%.0f %%", v * 100),
                List.of(new TimeChart.Line("acceptance", COLOURS[0], c.acceptance(), c.step())),
                threshold(p.thresholds().acceptanceRateLines(), true),
                marks)
            .svg());
    out.add(
        new TimeChart(
                "Mean accepted length (tokens a step, at most k + 1 = " + (k + 1) + ")",
                from,
                to,
                1,
                k + 1,
                v -> String.format(Locale.ROOT, "%.1f", v),
                List.of(new TimeChart.Line("length", COLOURS[1], c.length(), c.step())),
                threshold(p.thresholds().meanAcceptedLengthLines(), false),
                marks)
            .svg());
    if (!c.positions().isEmpty()) {
      List<TimeChart.Line> lines = new ArrayList<>();
      List<TimeChart.Threshold> lines2 = new ArrayList<>();
      for (int i = 0; i < c.positions().size(); i++) {
        lines.add(
            new TimeChart.Line(
                "position " + i, COLOURS[i % COLOURS.length], c.positions().get(i), c.step()));
        Threshold t = p.thresholds().positionAcceptance().get(i);
        if (t != null) {
          lines2.add(
              new TimeChart.Threshold(
                  t.level(), "position " + i + " below " + WebPages.percent(t.level())));
        }
      }
      out.add(
          new TimeChart(
                  "Acceptance by draft position",
                  from,
                  to,
                  0,
                  1,
                  v -> String.format(Locale.ROOT, "%.0f %%", v * 100),
                  lines,
                  lines2,
                  marks)
              .svg());
    }
    return out;
  }

  /** The time of the earliest point of any series, or null without any. */
  static Instant firstPoint(ChartData c) {
    Instant first = null;
    List<List<ChartData.Point>> all = new ArrayList<>(c.positions());
    all.add(c.acceptance());
    all.add(c.length());
    for (List<ChartData.Point> series : all) {
      if (!series.isEmpty() && (first == null || series.get(0).at().isBefore(first))) {
        first = series.get(0).at();
      }
    }
    return first;
  }

  private static List<TimeChart.Threshold> threshold(List<Threshold> lines, boolean percent) {
    return lines.stream()
        .map(x -> new TimeChart.Threshold(x.level(), WebPages.line(x, percent)))
        .toList();
  }
}
