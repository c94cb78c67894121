package dev.specwatch.server;

import dev.specwatch.signals.ActiveK;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A recipe's signals over a span, for the charts of its page: acceptance, mean accepted length and
 * acceptance per draft position, one point a step, each step's own counters (a point is what the
 * step measured, not a trailing average). Missing points are gaps (idle, no data).
 *
 * @param positions one series per draft position, in order; empty where not exported
 * @param kChanges where the k the servers report changed within the span (engines that say it
 *     exactly: SGLang's active gauge, vLLM's registered positions), oldest first
 */
public record ChartData(
    Instant from,
    Instant to,
    Duration step,
    List<Point> acceptance,
    List<Point> length,
    List<List<Point>> positions,
    List<ActiveK.Change> kChanges) {
  public ChartData {
    acceptance = List.copyOf(acceptance);
    length = List.copyOf(length);
    positions = positions.stream().map(List::copyOf).toList();
    kChanges = List.copyOf(kChanges);
  }

  public ChartData(
      Instant from,
      Instant to,
      Duration step,
      List<Point> acceptance,
      List<Point> length,
      List<List<Point>> positions) {
    this(from, to, step, acceptance, length, positions, List.of());
  }

  public record Point(Instant at, double value) {}
}
