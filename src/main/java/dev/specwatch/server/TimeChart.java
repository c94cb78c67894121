package dev.specwatch.server;

import dev.specwatch.signals.ActiveK;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A server-rendered SVG line chart over time (no script): one or more series on a fixed y range,
 * dashed horizontal lines for thresholds, and vertical marks where alerts fired (red) and resolved
 * (green). A gap in a series (a missing step) breaks its line rather than bridging it.
 */
record TimeChart(
    String title,
    Instant from,
    Instant to,
    double yMin,
    double yMax,
    DoubleFunction<String> tick,
    List<Line> lines,
    List<Threshold> thresholds,
    List<Mark> marks) {

  record Line(String name, String colour, List<ChartData.Point> points, Duration step) {}

  record Threshold(double value, String label) {}

  /**
   * A moment marked across the chart: an alert transition ({@code fired}, {@code resolved}) or a
   * change of the servers' k ({@code k-change}, labelled on the chart as well).
   *
   * @param label the hover text, whole: what, and when
   * @param tag the short text written beside the line ({@code k 3 → 5}), or empty for none
   */
  record Mark(Instant at, String kind, String label, String tag) {
    Mark(Instant at, boolean firing, String label) {
      this(at, firing ? "fired" : "resolved", label, "");
    }

    static Mark kChange(ActiveK.Change c) {
      return new Mark(c.at(), K_CHANGE, c.text() + " at " + c.at(), c.text());
    }

    String colour() {
      return switch (kind) {
        case "fired" -> "#de350b";
        case "resolved" -> "#36b37e";
        default -> "#6554c0";
      };
    }
  }

  static final String K_CHANGE = "k-change";

  static final int WIDTH = 900;
  static final int HEIGHT = 220;
  private static final int LEFT = 56;
  private static final int RIGHT = 12;
  private static final int TOP = 24;
  private static final int BOTTOM = 34;

  private double x(Instant t) {
    double span = Math.max(1, Duration.between(from, to).toMillis());
    return LEFT + (WIDTH - LEFT - RIGHT) * Duration.between(from, t).toMillis() / span;
  }

  private double y(double v) {
    double clamped = Math.max(yMin, Math.min(yMax, v));
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - (clamped - yMin) / (yMax - yMin));
  }

  String svg() {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "<svg class=\"timechart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\""
                + " aria-label=\"%s\">",
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT,
            WebPages.escapeAttribute(title)));
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"14\" font-size=\"12\" font-weight=\"600\" fill=\"#172b4d\">%s</text>",
            LEFT,
            WebPages.escapeAttribute(title)));
    for (int i = 0; i <= 4; i++) {
      double v = yMin + (yMax - yMin) * i / 4;
      double y = y(v);
      s.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#dfe1e6\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\""
                  + " fill=\"#6b778c\">%s</text>",
              LEFT,
              WIDTH - RIGHT,
              y,
              y,
              LEFT - 4,
              y + 3,
              WebPages.escapeAttribute(tick.apply(v))));
    }
    DateTimeFormatter hours = DateTimeFormatter.ofPattern("EEE HH:mm", Locale.ROOT);
    for (int i = 0; i <= 6; i++) {
      Instant t = from.plus(Duration.between(from, to).multipliedBy(i).dividedBy(6));
      s.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"%s\""
                  + " fill=\"#6b778c\">%s</text>",
              x(t),
              HEIGHT - 18,
              i == 0 ? "start" : i == 6 ? "end" : "middle",
              t.atZone(ZoneOffset.UTC).format(hours)));
    }
    // Threshold labels go in the title line, right-aligned: above the plot, never over the data.
    List<String> labels = new ArrayList<>();
    for (Threshold th : thresholds) {
      double y = y(th.value());
      s.append(
          String.format(
              Locale.ROOT,
              "<line class=\"threshold\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\""
                  + " stroke=\"#de350b\" stroke-dasharray=\"5 4\"/>",
              LEFT,
              WIDTH - RIGHT,
              y,
              y));
      labels.add(th.label());
    }
    if (!labels.isEmpty()) {
      s.append(
          String.format(
              Locale.ROOT,
              "<text class=\"threshold-label\" x=\"%d\" y=\"14\" font-size=\"10\""
                  + " text-anchor=\"end\" fill=\"#de350b\">dashed: %s</text>",
              WIDTH - RIGHT,
              WebPages.escapeAttribute(String.join(" · ", labels))));
    }
    for (Mark m : marks) {
      if (m.at().isBefore(from) || m.at().isAfter(to)) {
        continue;
      }
      double x = x(m.at());
      boolean k = m.kind().equals(K_CHANGE);
      boolean tagged = !m.tag().isEmpty();
      s.append(
          String.format(
              Locale.ROOT,
              "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\""
                  + " stroke-width=\"2\"%s><title>%s</title></line>",
              m.kind(),
              x,
              x,
              TOP,
              HEIGHT - BOTTOM,
              m.colour(),
              k ? " stroke-dasharray=\"2 3\"" : "",
              WebPages.escapeAttribute(m.label())));
      if (tagged) {
        // A change of k is read on the chart, not only hovered: "k 3 → 5" beside its line.
        s.append(
            String.format(
                Locale.ROOT,
                "<text class=\"k-change-label\" x=\"%.1f\" y=\"%d\" font-size=\"10\""
                    + " fill=\"%s\">%s</text>",
                x + 3,
                TOP + 10,
                m.colour(),
                WebPages.escapeAttribute(m.tag())));
      }
    }
    int legend = LEFT;
    for (Line line : lines) {
      for (String d : paths(line)) {
        s.append(
            String.format(
                Locale.ROOT,
                "<path class=\"series\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"/>",
                d,
                line.colour()));
      }
      if (lines.size() > 1) {
        s.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"3\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#172b4d\">%s</text>",
                legend,
                HEIGHT - 8,
                line.colour(),
                legend + 14,
                HEIGHT - 4,
                WebPages.escapeAttribute(line.name())));
        legend += 24 + 7 * line.name().length();
      }
    }
    if (lines.stream().allMatch(l -> l.points().isEmpty())) {
      s.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\""
                  + " fill=\"#6b778c\">no data over this span</text>",
              (WIDTH + LEFT) / 2,
              HEIGHT / 2));
    }
    return s.append("</svg>").toString();
  }

  /** The path pieces of a line: a point more than 1.5 steps after the last starts a new piece. */
  private List<String> paths(Line line) {
    List<String> out = new ArrayList<>();
    StringBuilder d = new StringBuilder();
    Instant last = null;
    for (ChartData.Point p : line.points()) {
      boolean gap =
          last == null
              || Duration.between(last, p.at()).compareTo(line.step().multipliedBy(3).dividedBy(2))
                  > 0;
      if (gap && d.length() > 0) {
        out.add(d.toString());
        d.setLength(0);
      }
      d.append(d.length() == 0 ? "M" : " L")
          .append(String.format(Locale.ROOT, "%.1f %.1f", x(p.at()), y(p.value())));
      last = p.at();
    }
    if (d.length() > 0) {
      out.add(d.toString());
    }
    return out;
  }
}
