package dev.specwatch.digest;

import dev.specwatch.advisor.SpeedupByLoad;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.text.DecimalFormat;
import java.time.format.TextStyle;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedDomainCategoryPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/** PNG charts for the digest (JFreeChart, headless: {@code Main} sets java.awt.headless). */
final class DigestCharts {
  private static final Color ACCEPTANCE = new Color(0x1f, 0x77, 0xb4);
  private static final Color LENGTH = new Color(0xff, 0x7f, 0x0e);
  private static final Color PREVIOUS = new Color(0xb0, 0xbe, 0xc5);
  private static final Font FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);

  private DigestCharts() {}

  /**
   * Daily acceptance rate and mean accepted length on two panels over the same days, each on a
   * fixed, honest range: acceptance 0–100 %, mean accepted length 1 to k+1 (its whole possible
   * range). Auto-scaled axes turned rounding noise (1.82 → 1.81) into a crash.
   */
  static byte[] daily(RecipeWeek r) {
    DefaultCategoryDataset acceptance = new DefaultCategoryDataset();
    DefaultCategoryDataset length = new DefaultCategoryDataset();
    for (RecipeWeek.Day d : r.daily()) {
      String day =
          d.date().getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ROOT)
              + " "
              + d.date().getDayOfMonth()
              + (d.partial() ? " (so far)" : "");
      acceptance.addValue(
          d.acceptanceRate() == null ? null : d.acceptanceRate() * 100, "acceptance rate", day);
      length.addValue(d.meanAcceptedLength(), "mean accepted length", day);
    }
    NumberAxis percent = axis("acceptance %", 0, 100, new DecimalFormat("0"));
    CategoryPlot top = new CategoryPlot(acceptance, null, percent, line(ACCEPTANCE));
    int k = Math.max(1, r.notes().k());
    NumberAxis tokens = axis("tokens / step", 1, k + 1, new DecimalFormat("0.0"));
    CategoryPlot bottom = new CategoryPlot(length, null, tokens, line(LENGTH));
    style(top);
    style(bottom);
    CategoryAxis days = new CategoryAxis();
    days.setMaximumCategoryLabelLines(2); // "Wed 25 (so far)" on two lines, not "Wed ..."
    CombinedDomainCategoryPlot plot = new CombinedDomainCategoryPlot(days);
    plot.setGap(8);
    plot.add(top, 1);
    plot.add(bottom, 1);
    return png(new JFreeChart(r.recipe() + ": daily", FONT, plot, false), 560, 300);
  }

  /** Acceptance by draft position: the previous week beside this one, 0–100 %. */
  static byte[] positions(RecipeWeek r) {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    List<Double> previous = r.notes().previousPositions();
    for (int i = 0; i < r.positionAcceptance().size(); i++) {
      Double before = i < previous.size() ? previous.get(i) : null;
      Double now = r.positionAcceptance().get(i);
      data.addValue(before == null ? null : before * 100, "previous week", "position " + i);
      data.addValue(now == null ? null : now * 100, "this week", "position " + i);
    }
    BarRenderer bars = new BarRenderer();
    bars.setBarPainter(new StandardBarPainter());
    bars.setShadowVisible(false);
    bars.setSeriesPaint(0, PREVIOUS);
    bars.setSeriesPaint(1, ACCEPTANCE);
    NumberAxis axis = axis("% of drafts", 0, 100, new DecimalFormat("0"));
    CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(), axis, bars);
    style(plot);
    return png(
        new JFreeChart(r.recipe() + ": acceptance by draft position", FONT, plot, true), 560, 220);
  }

  /**
   * The week's measured speed-up by load (docs/SPEEDUP.md): one bar per bucket of running requests,
   * green where it paid, red where it cost, grey where it broke even (the interval holds 1), a line
   * at 1×.
   */
  static byte[] speedup(RecipeWeek r) {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    double top = 2;
    for (RecipeWeek.Bar b : r.notes().speedup().byLoad()) {
      data.addValue(
          b.speedup(), "speed-up", b.speedup() == null ? b.load() + ": too little data" : b.load());
      if (b.speedup() != null) {
        top = Math.max(top, Math.ceil(b.speedup() * 2 + 0.5) / 2);
      }
    }
    List<RecipeWeek.Bar> bars = r.notes().speedup().byLoad();
    BarRenderer renderer =
        new BarRenderer() {
          private static final long serialVersionUID = 1L;

          @Override
          public java.awt.Paint getItemPaint(int row, int column) {
            return switch (bars.get(column).verdict()) {
              case SpeedupByLoad.PAYS -> new Color(0x36, 0xb3, 0x7e);
              case SpeedupByLoad.COSTS -> new Color(0xde, 0x35, 0x0b);
              default -> new Color(0xa5, 0xad, 0xba);
            };
          }
        };
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    NumberAxis axis = axis("speed-up per request (×)", 0, top, new DecimalFormat("0.0"));
    CategoryPlot plot =
        new CategoryPlot(data, new CategoryAxis("running requests"), axis, renderer);
    style(plot);
    org.jfree.chart.plot.ValueMarker one = new org.jfree.chart.plot.ValueMarker(1.0);
    one.setPaint(Color.DARK_GRAY);
    one.setStroke(
        new BasicStroke(
            1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
    plot.addRangeMarker(one);
    return png(
        new JFreeChart(
            r.recipe() + ": speed-up by load against " + r.notes().speedup().baseline(),
            FONT,
            plot,
            false),
        560,
        220);
  }

  /** A fixed range with plain ticks: never scientific notation, never zoomed into noise. */
  private static NumberAxis axis(String label, double lower, double upper, DecimalFormat format) {
    NumberAxis axis = new NumberAxis(label);
    axis.setAutoRange(false);
    axis.setRange(lower, upper);
    axis.setNumberFormatOverride(format);
    return axis;
  }

  private static LineAndShapeRenderer line(Color color) {
    LineAndShapeRenderer renderer = new LineAndShapeRenderer(true, true);
    renderer.setSeriesPaint(0, color);
    renderer.setSeriesStroke(0, new BasicStroke(2f));
    return renderer;
  }

  private static void style(CategoryPlot plot) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
    plot.setOutlineVisible(false);
  }

  private static byte[] png(JFreeChart chart, int width, int height) {
    chart.setBackgroundPaint(Color.WHITE);
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ChartUtils.writeChartAsPNG(out, chart, width, height);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
