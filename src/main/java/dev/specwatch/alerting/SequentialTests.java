package dev.specwatch.alerting;

import dev.specwatch.detect.DropTest;
import dev.specwatch.detect.NoiseModel;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** What the sequential rules share: calibrated thresholds, cached, and message pieces. */
final class SequentialTests {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  private SequentialTests() {}

  /** Thresholds of one test design for one model and reference. */
  record Thresholds(List<Double> drop, List<Double> recover) {}

  private record Key(DropTest test, NoiseModel model, double reference, double clear) {}

  /** Bisection per threshold is not free; models change every few hours, so remember them. */
  private static final Map<Key, Thresholds> CACHE = new ConcurrentHashMap<>();

  static Thresholds thresholds(DropTest test, NoiseModel m, double reference, double clear) {
    if (CACHE.size() > 10_000) {
      CACHE.clear();
    }
    return CACHE.computeIfAbsent(
        new Key(test, m, reference, clear),
        k ->
            new Thresholds(
                test.dropThresholds(m, reference), test.recoverThresholds(m, reference, clear)));
  }

  static String time(Instant t) {
    return t == null ? "?" : TIME.format(t);
  }
}
