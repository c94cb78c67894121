package dev.specwatch.schedule;

import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.server.SpeedupView;
import dev.specwatch.signals.LoadHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The recipe page's speed-up by load over the last day (docs/SPEEDUP.md): two range queries per
 * recipe with a {@code speedup_baseline}, kept {@link #FRESH} (a day's figure moves slowly), so
 * page views do not turn into Prometheus load.
 */
final class SpeedupCache {
  static final Duration SPAN = Duration.ofHours(24);
  static final Duration STEP = Duration.ofMinutes(1);
  static final Duration FRESH = Duration.ofMinutes(10);

  private record Entry(Instant at, Optional<SpeedupView> view) {}

  private final Map<String, Entry> cache = new ConcurrentHashMap<>();

  Optional<SpeedupView> get(String recipe, Daemon.Wiring wiring, Instant now) {
    Entry e = cache.get(recipe);
    if (e != null && e.at().plus(FRESH).isAfter(now)) {
      return e.view();
    }
    Optional<SpeedupView> view = compute(recipe, wiring, now);
    cache.put(recipe, new Entry(now, view));
    return view;
  }

  private static Optional<SpeedupView> compute(String recipe, Daemon.Wiring wiring, Instant now) {
    List<Policy> all =
        Stream.concat(wiring.config().policies().stream(), wiring.config().baselines().stream())
            .toList();
    Policy p = all.stream().filter(x -> x.recipe().equals(recipe)).findFirst().orElse(null);
    if (p == null || p.speedupBaseline().isEmpty()) {
      return Optional.empty();
    }
    Policy base =
        all.stream()
            .filter(x -> x.recipe().equals(p.speedupBaseline().get()))
            .findFirst()
            .orElse(null);
    if (base == null) {
      return Optional.empty();
    }
    try {
      Map<String, List<SpeedupByLoad.Step>> steps =
          LoadHistory.fetch(wiring.prometheus(), List.of(p, base), now.minus(SPAN), now, STEP);
      SpeedupByLoad.Result r =
          SpeedupByLoad.measure(
              steps.getOrDefault(p.recipe(), List.of()),
              steps.getOrDefault(base.recipe(), List.of()),
              STEP.toSeconds() * 1.0);
      List<SpeedupView.Bucket> buckets = new ArrayList<>();
      for (SpeedupByLoad.Bucket b : r.byLoad()) {
        buckets.add(
            new SpeedupView.Bucket(
                b.runningMin(),
                b.runningMax(),
                b.hours(),
                b.baselineHours(),
                b.speedup(),
                b.low(),
                b.high(),
                b.verdict(),
                b.note()));
      }
      return Optional.of(
          new SpeedupView(base.recipe(), "last 24 hours", buckets, r.paysUpToRunning()));
    } catch (PrometheusException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
