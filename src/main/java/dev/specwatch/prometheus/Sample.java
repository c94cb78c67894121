package dev.specwatch.prometheus;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * One value of one series. {@code value} may be NaN or ±Inf exactly as Prometheus returned it;
 * callers decide what those mean.
 */
public record Sample(Map<String, String> labels, Instant time, double value) {
  public Sample {
    labels = Map.copyOf(labels);
  }

  /**
   * This sample without the labels {@code names}: the evaluator keeps each sample until the
   * recipes' snapshots are made, and the labels that matched it to its recipe were most of what it
   * kept (docs/PERFORMANCE.md, 2026-12-06).
   */
  public Sample without(Collection<String> names) {
    int others = 0;
    Map.Entry<String, String> other = null;
    for (Map.Entry<String, String> label : labels.entrySet()) {
      if (!names.contains(label.getKey())) {
        others++;
        other = label;
      }
    }
    if (others == labels.size()) {
      return this;
    }
    if (others == 0) {
      return new Sample(Map.of(), time, value);
    }
    if (others == 1) {
      return new Sample(Map.of(other.getKey(), other.getValue()), time, value);
    }
    Map<String, String> rest = new HashMap<>(labels);
    rest.keySet().removeAll(names);
    return new Sample(rest, time, value);
  }
}
