package dev.specwatch.schedule;

import dev.specwatch.advisor.LoadSchedule;
import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.server.ChartData;
import dev.specwatch.server.RecipeHistory;
import dev.specwatch.server.SpeedupView;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.signals.FinishedRequests;
import dev.specwatch.signals.LoadHistory;
import dev.specwatch.signals.RecipeSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the recipe page shows from history, kept {@link #FRESH} so page views do not turn into
 * Prometheus load: the speed-up by load over the last day (docs/SPEEDUP.md; two range queries per
 * recipe with a {@code speedup_baseline}, and eight instant queries comparing the two sides'
 * finished requests) and the advisor over the last {@link #ADVICE_WINDOW} (one evaluation of the
 * recipe), which does not flip with the minute's traffic as the evaluation window's would.
 */
final class RecipeHistoryCache {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(RecipeHistoryCache.class);

  static final Duration SPAN = Duration.ofHours(24);
  static final Duration STEP = LoadHistory.STEP;
  static final Duration FRESH = Duration.ofMinutes(10);
  static final Duration ADVICE_WINDOW = Duration.ofHours(1);
  static final Duration CHARTS_FRESH = Duration.ofSeconds(30);

  private record Entry(
      Instant at, Optional<SpeedupView> speedup, Optional<RecipeHistory.Advice> advice) {}

  private record Charts(Instant at, Optional<ChartData> data) {}

  private final Map<String, Entry> cache = new ConcurrentHashMap<>();
  private final Map<String, Charts> charts = new ConcurrentHashMap<>();

  RecipeHistory get(String recipe, Duration span, Daemon.Wiring wiring, Instant now) {
    Entry e = cache.get(recipe);
    if (e == null || !e.at().plus(FRESH).isAfter(now)) {
      Optional<SpeedupByLoad.Result> measured = measure(recipe, wiring, now);
      e =
          new Entry(
              now,
              measured.map(r -> view(recipe, r, wiring, now)),
              advice(recipe, measured, wiring, now));
      cache.put(recipe, e);
    }
    // A chart is kept half a minute: page views (every 30 s each) do not each query Prometheus.
    String key = recipe + "\u0000" + span;
    Charts c = charts.get(key);
    if (c == null || !c.at().plus(CHARTS_FRESH).isAfter(now)) {
      c = new Charts(now, RecipeCharts.fetch(wiring.config().recipe(recipe), span, wiring, now));
      charts.put(key, c);
    }
    return new RecipeHistory(e.speedup(), e.advice(), c.data());
  }

  /**
   * The advice the page gives: with a measured speed-up, the one k for all the load it ran that
   * {@code advise} gives over the same day ({@link LoadSchedule#overall}); otherwise the acceptance
   * model over the last {@link #ADVICE_WINDOW}.
   */
  private static Optional<RecipeHistory.Advice> advice(
      String recipe, Optional<SpeedupByLoad.Result> measured, Daemon.Wiring wiring, Instant now) {
    Policy p = wiring.config().recipe(recipe).orElse(null);
    if (p == null || p.numSpeculativeTokens() == 0) {
      return Optional.empty();
    }
    if (measured.isPresent()) {
      try {
        LoadSchedule.Overall o =
            LoadSchedule.overall(
                measured.get(),
                LoadHistory.positionsByLoad(wiring.prometheus(), p, now.minus(SPAN), now, STEP),
                p.numSpeculativeTokens());
        if (o != null) {
          return Optional.of(
              new RecipeHistory.Advice(
                  o.k(),
                  o.basis("the last 24 hours", p.numSpeculativeTokens())
                      + " (specwatch advise gives it by load)",
                  null));
        }
      } catch (PrometheusException | RuntimeException ex) {
        logger.debug(
            "advice by load for {}: {}; the acceptance model instead", recipe, ex.toString());
      }
    }
    RecipeSnapshot s =
        new Evaluator(wiring.prometheus(), java.time.Clock.systemUTC())
            .evaluate(List.of(p), ADVICE_WINDOW, Optional.of(now))
            .recipes()
            .get(0);
    return s.signals()
        .advice()
        .map(
            a ->
                new RecipeHistory.Advice(
                    a.enough() ? a.recommended().k() : null,
                    a.basis() + " over the last " + Durations.format(ADVICE_WINDOW),
                    a.warning()));
  }

  /** The speed-up by load over the last {@link #SPAN}, or empty without a baseline or an answer. */
  private static Optional<SpeedupByLoad.Result> measure(
      String recipe, Daemon.Wiring wiring, Instant now) {
    Policy p = wiring.config().recipe(recipe).orElse(null);
    if (p == null || p.speedupBaseline().isEmpty()) {
      return Optional.empty();
    }
    Policy base = wiring.config().recipe(p.speedupBaseline().get()).orElse(null);
    if (base == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          LoadHistory.speedup(wiring.prometheus(), p, base, now.minus(SPAN), now, STEP));
    } catch (PrometheusException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static SpeedupView view(
      String recipe, SpeedupByLoad.Result r, Daemon.Wiring wiring, Instant now) {
    String base = wiring.config().recipe(recipe).flatMap(Policy::speedupBaseline).orElse("");
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
    SpeedupByLoad.Bucket most = r.mostRun();
    Instant to = LoadHistory.align(now, STEP);
    return new SpeedupView(
        base,
        "last 24 hours, to "
            + java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
                .withZone(java.time.ZoneOffset.UTC)
                .format(to)
            + " UTC, in "
            + Durations.format(STEP)
            + " steps",
        buckets,
        r.paysUpToRunning(),
        r.breaksEvenClause(),
        most == null ? null : most.mostRunLine(),
        confounded(recipe, wiring, now));
  }

  /**
   * Why the day's comparison may be confounded: the two sides' finished requests differ in prompt
   * or output length (eight instant queries, where the engine exports the histograms); null where
   * they do not, are not known, or Prometheus did not answer.
   */
  private static String confounded(String recipe, Daemon.Wiring wiring, Instant now) {
    Policy p = wiring.config().recipe(recipe).orElse(null);
    Policy base =
        p == null ? null : p.speedupBaseline().flatMap(b -> wiring.config().recipe(b)).orElse(null);
    if (base == null) {
      return null;
    }
    try {
      return FinishedRequests.confounded(wiring.prometheus(), p, base, now, SPAN).orElse(null);
    } catch (PrometheusException | RuntimeException e) {
      logger.debug("traffic of {} not compared: {}", recipe, e.toString());
      return null;
    }
  }
}
