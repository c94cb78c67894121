package dev.specwatch.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The fleet page's and the plain recipe page's 6-hour trend, as a small SVG with its scale. */
final class Sparkline {
  private Sparkline() {}

  /**
   * A 6-hour sparkline in a 150×30 box: the plot 120 wide, its scale written at the right (0–100 %
   * for acceptance; 0 to the highest value for throughput, which has no fixed top), and the
   * acceptance threshold as a dashed red line where one is set.
   *
   * @param threshold the acceptance_rate threshold's {@code below}, or null
   * @param throughput values are generation tokens/s (a deployment without speculation)
   */
  static String svg(List<Double> values, Double threshold, boolean throughput) {
    int n = values.size();
    double top = throughput ? 0 : 1;
    if (throughput) {
      for (Double v : values) {
        if (v != null && Double.isFinite(v)) {
          top = Math.max(top, v);
        }
      }
      if (top <= 0) {
        top = 1;
      }
    }
    List<String> points = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Double v = values.get(i);
      if (v != null && Double.isFinite(v)) {
        double x = n == 1 ? 0 : 120.0 * i / (n - 1);
        double y = 28 - 26 * Math.max(0, Math.min(1, v / top));
        points.add(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
      }
    }
    if (points.isEmpty()) {
      return "<span class=\"muted\">no data in 6 h</span>";
    }
    String what = throughput ? "generation tokens/s" : "acceptance";
    String topLabel = throughput ? compact(top) : "100%";
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg class=\"spark\" width=\"150\" height=\"30\" viewBox=\"0 0 150 30\""
                + " role=\"img\" aria-label=\"%s over the last 6 hours, 0 to %s%s\">",
            what,
            topLabel,
            threshold == null
                ? ""
                : String.format(Locale.ROOT, ", threshold %.0f %%", threshold * 100)));
    svg.append("<line x1=\"0\" y1=\"28\" x2=\"120\" y2=\"28\" stroke=\"#dfe1e6\"/>");
    if (threshold != null && !throughput) {
      double y = 28 - 26 * Math.max(0, Math.min(1, threshold));
      svg.append(
          String.format(
              Locale.ROOT,
              "<line class=\"threshold\" x1=\"0\" y1=\"%.1f\" x2=\"120\" y2=\"%.1f\""
                  + " stroke=\"#de350b\" stroke-dasharray=\"3 2\"/>",
              y,
              y));
    }
    svg.append("<polyline fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\" points=\"")
        .append(String.join(" ", points))
        .append("\"/>");
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"124\" y=\"8\" font-size=\"8\" fill=\"#6b778c\">%s</text>"
                + "<text x=\"124\" y=\"29\" font-size=\"8\" fill=\"#6b778c\">0</text>",
            topLabel));
    return svg.append("</svg>").toString();
  }

  /** 1170 as "1.2k", 87 as "87": a scale label in 4 characters. */
  static String compact(double v) {
    return v >= 1000
        ? String.format(Locale.ROOT, "%.1fk", v / 1000)
        : String.format(Locale.ROOT, "%.0f", v);
  }
}
