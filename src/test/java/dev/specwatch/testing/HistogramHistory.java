package dev.specwatch.testing;

import java.util.Locale;

/**
 * One histogram series of an OpenMetrics history for {@link PrometheusServer.Builder#history}: its
 * {@code +Inf} bucket, {@code _sum} and {@code _count}, a point per {@link #add}. Every observation
 * lands in the {@code +Inf} bucket: the tests that use it read only {@code _sum} and {@code
 * _count}.
 */
public final class HistogramHistory {
  private final String name;
  private final String labels;
  private final StringBuilder bucket = new StringBuilder();
  private final StringBuilder sum = new StringBuilder();
  private final StringBuilder count = new StringBuilder();

  /**
   * @param name the family, e.g. {@code vllm:request_generation_tokens}
   * @param labels the series' labels without braces, e.g. {@code job="vllm",model_name="m"}
   */
  public HistogramHistory(String name, String labels) {
    this.name = name;
    this.labels = labels;
  }

  /** The cumulative observation count and sum at {@code epochSecond}. */
  public void add(long epochSecond, double observations, double total) {
    bucket.append(
        String.format(
            Locale.ROOT,
            "%s_bucket{%s,le=\"+Inf\"} %.3f %d%n",
            name,
            labels,
            observations,
            epochSecond));
    sum.append(
        String.format(Locale.ROOT, "%s_sum{%s} %.3f %d%n", name, labels, total, epochSecond));
    count.append(
        String.format(
            Locale.ROOT, "%s_count{%s} %.3f %d%n", name, labels, observations, epochSecond));
  }

  /** The three series, each with its points in order. */
  public String text() {
    return bucket.toString() + sum + count;
  }
}
