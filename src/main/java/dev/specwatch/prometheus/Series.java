package dev.specwatch.prometheus;

import java.util.List;
import java.util.Map;

/** One series of a range query: its labels and points in time order. */
public record Series(Map<String, String> labels, List<Point> points) {
  public Series {
    labels = Map.copyOf(labels);
    points = List.copyOf(points);
  }

  /** Seconds since the epoch (as Prometheus reports them, with millisecond precision) and value. */
  public record Point(double time, double value) {}
}
