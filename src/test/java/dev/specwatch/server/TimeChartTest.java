package dev.specwatch.server;

import static org.assertj.core.api.Assertions.assertThat;

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
    assertThat(chart(List.of(), List.of()).svg()).contains("no data over this span");
  }
}
