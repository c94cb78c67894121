package dev.specwatch.server;

import dev.specwatch.advisor.SpeedupByLoad;
import java.util.List;
import java.util.Locale;

/**
 * A recipe's measured speed-up by load over the last day, for its page (docs/SPEEDUP.md).
 *
 * @param buckets in order of load; a bucket without a number says why in {@code note}
 * @param breaksEven "; break-even at 64–127 running (…)" after "paid up to", or empty
 * @param mostRun the headline every screen gives: the speed-up at the load it ran most, or null
 * @param confounded why the comparison may be confounded ("may be confounded: the two sides'
 *     requests differ (…)"), or null where their traffic does not differ or is not known
 */
public record SpeedupView(
    String baseline,
    String span,
    List<Bucket> buckets,
    Integer paysUpTo,
    String breaksEven,
    String mostRun,
    String confounded) {
  public SpeedupView {
    buckets = List.copyOf(buckets);
  }

  /** One bucket of running requests; {@code speedup} null with too little data. */
  public record Bucket(
      int runningMin,
      int runningMax,
      double hours,
      double baselineHours,
      Double speedup,
      Double low,
      Double high,
      String verdict,
      String note) {
    String load() {
      return runningMin == runningMax
          ? Integer.toString(runningMin)
          : runningMin + "–" + runningMax;
    }
  }

  /** The table under the chart: formatted figures, one row per bucket. */
  List<java.util.Map<String, Object>> rows() {
    List<java.util.Map<String, Object>> out = new java.util.ArrayList<>();
    for (Bucket b : buckets) {
      java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
      m.put("load", b.load());
      m.put(
          "speedup", b.speedup() == null ? "–" : String.format(Locale.ROOT, "%.2f×", b.speedup()));
      m.put(
          "interval",
          b.low() == null ? "" : String.format(Locale.ROOT, "%.2f–%.2f", b.low(), b.high()));
      m.put("hours", String.format(Locale.ROOT, "%.1f / %.1f", b.hours(), b.baselineHours()));
      m.put("verdict", b.verdict().replace('_', ' ') + (b.note() == null ? "" : ": " + b.note()));
      out.add(m);
    }
    return out;
  }

  /**
   * A bar chart: one bar per bucket (its speed-up, with the 95 % interval as a whisker), a dashed
   * line at 1× (below it speculation costs), green where it pays, red where it costs, grey where
   * breaks even; buckets without enough data are an empty slot labelled "–".
   */
  String svg() {
    int n = Math.max(1, buckets.size());
    double top = 2;
    for (Bucket b : buckets) {
      if (b.high() != null && Double.isFinite(b.high())) {
        top = Math.max(top, Math.ceil(b.high() * 2) / 2);
      }
    }
    int width = 60 + 64 * n;
    int height = 200;
    double plot = 150;
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "<svg class=\"speedup\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\""
                + " aria-label=\"measured speed-up by running requests against %s\">",
            width,
            height,
            width,
            height,
            WebPages.escapeAttribute(baseline)));
    for (double tick = 0; tick <= top + 1e-9; tick += 0.5) {
      double y = 10 + plot * (1 - tick / top);
      s.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"44\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#dfe1e6\"/>"
                  + "<text x=\"40\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\""
                  + " fill=\"#6b778c\">%.1f×</text>",
              width - 6,
              y,
              y,
              y + 3,
              tick));
    }
    double one = 10 + plot * (1 - 1 / top);
    s.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"44\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#172b4d\""
                + " stroke-dasharray=\"4 3\"/>",
            width - 6,
            one,
            one));
    for (int i = 0; i < buckets.size(); i++) {
      Bucket b = buckets.get(i);
      double x = 56 + 64 * i;
      if (b.speedup() != null) {
        String colour =
            switch (b.verdict()) {
              case SpeedupByLoad.PAYS -> "#36b37e";
              case SpeedupByLoad.COSTS -> "#de350b";
              default -> "#a5adba";
            };
        double y = 10 + plot * (1 - Math.min(b.speedup(), top) / top);
        s.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"40\" height=\"%.1f\" fill=\"%s\"><title>%s"
                    + " running: %.2f× (95 %% %.2f–%.2f), %s</title></rect>",
                x,
                y,
                160 - y,
                colour,
                b.load(),
                b.speedup(),
                b.low(),
                b.high(),
                b.verdict().replace('_', ' ')));
        double yLow = 10 + plot * (1 - Math.min(b.low(), top) / top);
        double yHigh = 10 + plot * (1 - Math.min(b.high(), top) / top);
        s.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#172b4d\"/>"
                    + "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\""
                    + " fill=\"#172b4d\">%.2f×</text>",
                x + 20,
                x + 20,
                yLow,
                yHigh,
                x + 20,
                Math.max(9, yHigh - 3),
                b.speedup()));
      } else {
        s.append(
            String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"150\" font-size=\"10\" text-anchor=\"middle\""
                    + " fill=\"#6b778c\">–<title>%s</title></text>",
                x + 20,
                WebPages.escapeAttribute(b.note() == null ? "too little data" : b.note())));
      }
      s.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"176\" font-size=\"11\" text-anchor=\"middle\""
                  + " fill=\"#172b4d\">%s</text>",
              x + 20,
              b.load()));
    }
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"194\" font-size=\"11\" text-anchor=\"middle\" fill=\"#6b778c\">"
                + "running requests</text></svg>",
            width / 2));
    return s.toString();
  }
}
