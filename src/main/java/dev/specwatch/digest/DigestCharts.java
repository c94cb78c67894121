package dev.specwatch.digest;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.format.TextStyle;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/** PNG charts for the digest (JFreeChart, headless). */
final class DigestCharts {
  static {
    System.setProperty("java.awt.headless", "true");
  }

  private static final Color ACCEPTANCE = new Color(0x1f, 0x77, 0xb4);
  private static final Color LENGTH = new Color(0xff, 0x7f, 0x0e);
  private static final Font FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);

  private DigestCharts() {}

  /** Daily acceptance rate (left axis, %) and mean accepted length (right axis). */
  static byte[] daily(RecipeWeek r) {
    DefaultCategoryDataset acceptance = new DefaultCategoryDataset();
    DefaultCategoryDataset length = new DefaultCategoryDataset();
    for (RecipeWeek.Day d : r.daily()) {
      String day =
          d.date().getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ROOT)
              + " "
              + d.date().getDayOfMonth();
      acceptance.addValue(
          d.acceptanceRate() == null ? null : d.acceptanceRate() * 100, "acceptance rate (%)", day);
      length.addValue(d.meanAcceptedLength(), "mean accepted length", day);
    }
    CategoryPlot plot = new CategoryPlot();
    plot.setDomainAxis(new CategoryAxis());
    NumberAxis left = new NumberAxis("acceptance %");
    left.setRange(0, 100);
    NumberAxis right = new NumberAxis("tokens / step");
    right.setAutoRangeIncludesZero(false);
    plot.setRangeAxis(0, left);
    plot.setRangeAxis(1, right);
    plot.setDataset(0, acceptance);
    plot.setDataset(1, length);
    plot.mapDatasetToRangeAxis(1, 1);
    plot.setRenderer(0, line(ACCEPTANCE));
    plot.setRenderer(1, line(LENGTH));
    plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
    style(plot);
    return png(new JFreeChart(r.recipe() + ": daily", FONT, plot, true), 560, 240);
  }

  /** Acceptance by draft position over the week. */
  static byte[] positions(RecipeWeek r) {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (int i = 0; i < r.positionAcceptance().size(); i++) {
      Double v = r.positionAcceptance().get(i);
      data.addValue(v == null ? null : v * 100, "acceptance (%)", "position " + i);
    }
    BarRenderer bars = new BarRenderer();
    bars.setBarPainter(new StandardBarPainter());
    bars.setShadowVisible(false);
    bars.setSeriesPaint(0, ACCEPTANCE);
    NumberAxis axis = new NumberAxis("% of drafts");
    axis.setRange(0, 100);
    CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(), axis, bars);
    style(plot);
    return png(
        new JFreeChart(r.recipe() + ": acceptance by draft position", FONT, plot, false), 560, 200);
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
