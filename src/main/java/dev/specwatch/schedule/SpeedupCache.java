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
    Policy p = wiring.config().recipe(recipe).orElse(null);
    if (p == null || p.speedupBaseline().isEmpty()) {
      return Optional.empty();
    }
    Policy base = wiring.config().recipe(p.speedupBaseline().get()).orElse(null);
    if (base == null) {
      return Optional.empty();
    }
    try {
      SpeedupByLoad.Result r =
          LoadHistory.speedup(wiring.prometheus(), p, base, now.minus(SPAN), now, STEP);
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
