package dev.specwatch.prometheus;

import java.time.Instant;
import java.util.Map;

/**
 * One value of one series. {@code value} may be NaN or ±Inf exactly as Prometheus returned it;
 * callers decide what those mean.
 */
public record Sample(Map<String, String> labels, Instant time, double value) {
  public Sample {
    labels = Map.copyOf(labels);
  }
}
