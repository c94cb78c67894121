package dev.specwatch.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.signals.ActiveK;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SVG of the charts over time: scaling, gaps, thresholds, marks, escaping. */
class TimeChartTest {
  private static final Instant FROM = Instant.parse("2026-11-30T00:00:00Z");
  private static final Duration STEP = Duration.ofMinutes(1);

  private static ChartData.Point at(int minute, double v) {
    return new ChartData.Point(FROM.plus(STEP.multipliedBy(minute)), v);
  }

  private static List<ActiveK.Change> changes(List<ChartData.Point> k) {
    return ActiveK.changes(
        k.stream().map(ChartData.Point::at).toList(),
        k.stream().map(ChartData.Point::value).toList());
  }

  private static TimeChart chart(List<ChartData.Point> points, List<TimeChart.Mark> marks) {
    return new TimeChart(
        "acceptance <of> \"x\"",
        FROM,
        FROM.plus(STEP.multipliedBy(100)),
        0,
        1,
        v -> Math.round(v * 100) + " %",
        List.of(new TimeChart.Line("acceptance", "#0052cc", points, STEP)),
        List.of(new TimeChart.Threshold(0.45, "below 45.0 %")),
        marks);
  }

  @Test
  void aMissingStepBreaksTheLineAndValuesMapOntoTheFixedRange() {
    String svg =
        chart(List.of(at(0, 1.0), at(1, 0.5), at(2, 0.5), at(10, 0.0), at(11, 0.0)), List.of())
            .svg();
    // Two pieces: minutes 0-2, then 10-11 after the gap (not bridged).
    assertThat(svg.split("class=\"series\"", -1)).hasSize(3);
    // x from 56 to 888 over 100 minutes; y from 24 (1.0) to 186 (0.0).
    assertThat(svg).contains("d=\"M56.0 24.0 L64.3 105.0 L72.6 105.0\"");
    assertThat(svg).contains("d=\"M139.2 186.0 L147.5 186.0\"");
    assertThat(svg).contains("class=\"threshold\"").contains("below 45.0 %");
    assertThat(svg).contains("acceptance &lt;of&gt; &quot;x&quot;").doesNotContain("<of>");
  }

  @Test
  void aChangeOfTheServersKIsFoundAcrossGapsAndMarkedWithItsText() {
    List<ActiveK.Change> changes =
        changes(List.of(at(0, 3), at(1, 3), at(5, 5.0000001), at(6, 5), at(9, 3)));
    assertThat(changes)
        .containsExactly(
            new ActiveK.Change(FROM.plus(STEP.multipliedBy(5)), 3, 5),
            new ActiveK.Change(FROM.plus(STEP.multipliedBy(9)), 5, 3));
    assertThat(changes(List.of(at(0, 4), at(1, 4)))).isEmpty();
    String svg = chart(List.of(at(0, 0.8)), List.of(TimeChart.Mark.kChange(changes.get(0)))).svg();
    assertThat(svg)
        .contains("class=\"k-change\"")
        .contains("stroke-dasharray")
        .contains("<title>k 3 \u2192 5 at 2026-11-30T00:05:00Z</title>")
        .contains("class=\"k-change-label\"")
        .contains(">k 3 \u2192 5</text>");
  }

  @Test
  void firesAndResolvesInTheSpanAreMarkedAndOthersAreNot() {
    String svg =
        chart(
                List.of(at(0, 0.8)),
                List.of(
                    new TimeChart.Mark(FROM.plus(STEP.multipliedBy(50)), true, "fired"),
                    new TimeChart.Mark(FROM.plus(STEP.multipliedBy(60)), false, "resolved"),
                    new TimeChart.Mark(FROM.minus(STEP), true, "before the span")))
            .svg();
    assertThat(svg.split("class=\"fired\"", -1)).hasSize(2);
    assertThat(svg.split("class=\"resolved\"", -1)).hasSize(2);
    assertThat(svg).doesNotContain("before the span");
    // An alert's transition is hovered, not written beside its line: only a change of k is.
    assertThat(svg).doesNotContain("<text class=\"k-change-label\"");
    assertThat(chart(List.of(), List.of()).svg()).contains("no data over this span");
  }

  @Test
  void thresholdLabelsSitInTheTitleLineNeverOverTheData() {
    // Before, "below 45.0 %" was drawn just above the dashed line, inside the plot, on the data.
    String svg = chart(List.of(at(0, 0.46), at(100, 0.46)), List.of()).svg();
    java.util.regex.Matcher label =
        java.util.regex.Pattern.compile("<text class=\"threshold-label\"[^>]* y=\"([0-9.]+)\"")
            .matcher(svg);
    assertThat(label.find()).as(svg).isTrue();
    // The plot starts at y = 24: the label's baseline (14) is above it.
    assertThat(Double.parseDouble(label.group(1))).isLessThan(24);
    assertThat(svg).contains(">dashed: below 45.0 %</text>");
    assertThat(svg.split("threshold-label", -1)).hasSize(2);
  }

  @Test
  void aYoungRecipeFillsTheChartInsteadOfAStripAtTheRightEdge() {
    // Six hours asked for, seven minutes of data: the span starts a step before the first point.
    Instant to = FROM.plus(Duration.ofHours(6));
    List<ChartData.Point> points = new java.util.ArrayList<>();
    for (int s = 7 * 60; s >= 0; s -= 30) {
      points.add(new ChartData.Point(to.minusSeconds(s), 0.8));
    }
    ChartData c =
        new ChartData(
            FROM, to, Duration.ofSeconds(30), points, points, List.of(points, points, points));
    dev.specwatch.model.Policy p =
        dev.specwatch.model.Policy.builder(
                "young", java.util.Map.of("job", "vllm", "model_name", "it/young"), 3)
            .acceptanceRate(dev.specwatch.model.Threshold.below(0.45))
            .build();
    String svg = RecipeChartViews.svgs(c, p, List.of(), to).get(0);
    // Seven minutes in a span of ten (the least): the first point at 30 % of the plot, not 98 %.
    java.util.regex.Matcher d =
        java.util.regex.Pattern.compile("class=\"series\" d=\"M([0-9.]+) ").matcher(svg);
    assertThat(d.find()).as(svg).isTrue();
    double x = Double.parseDouble(d.group(1));
    assertThat(x)
        .isCloseTo(56 + (900 - 56 - 12) * 0.3, org.assertj.core.api.Assertions.within(1.0));
    // Ten minutes at least: one point is not stretched over the whole width.
    ChartData one =
        new ChartData(
            FROM,
            to,
            Duration.ofSeconds(30),
            List.of(points.get(points.size() - 1)),
            List.of(),
            List.of());
    assertThat(RecipeChartViews.firstPoint(one)).isEqualTo(to);
    String single = RecipeChartViews.svgs(one, p, List.of(), to).get(0);
    java.util.regex.Matcher d1 =
        java.util.regex.Pattern.compile("class=\"series\" d=\"M([0-9.]+) ").matcher(single);
    assertThat(d1.find()).isTrue();
    assertThat(Double.parseDouble(d1.group(1)))
        .isCloseTo(888.0, org.assertj.core.api.Assertions.within(0.5));
  }

  @Test
  void sparklinesCarryTheirScaleAndTheThreshold() {
    java.util.List<Double> values = java.util.Arrays.asList(0.8, null, 0.4, 0.82);
    String acceptance = Sparkline.svg(values, 0.45, false);
    assertThat(acceptance)
        .contains("aria-label=\"acceptance over the last 6 hours, 0 to 100%, threshold 45 %\"")
        .contains("class=\"threshold\"")
        .contains(">100%</text>")
        .contains(">0</text>");
    // The threshold's y: 28 - 26 * 0.45 = 16.3.
    assertThat(acceptance).contains("y1=\"16.3\"");
    String throughput = Sparkline.svg(java.util.Arrays.asList(600.0, 1170.0, 900.0), null, true);
    assertThat(throughput)
        .contains("aria-label=\"generation tokens/s over the last 6 hours, 0 to 1.2k\"")
        .contains(">1.2k</text>")
        .doesNotContain("class=\"threshold\"")
        // The highest value touches the top: y = 28 - 26 = 2.
        .contains("60.0,2.0");
    assertThat(Sparkline.svg(java.util.Arrays.asList(null, null), 0.45, false))
        .contains("no data in 6 h");
  }
}
