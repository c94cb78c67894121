package dev.specwatch.schedule;

import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.QueryResult;
import dev.specwatch.prometheus.Series;
import dev.specwatch.server.ChartData;
import dev.specwatch.signals.ActiveK;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.QueryScope;
import dev.specwatch.signals.Signal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recipe page's charts over time: acceptance, mean accepted length and acceptance per draft
 * position over a span (6 h, 24 h or 7 d), 720 steps (30 s over 6 h: a 90-second regression is
 * three points, not one blurred one), each measured over its own step or a minute, whichever is
 * longer, so that a step holds two scrapes. Three range queries per recipe and span, and a fourth
 * for the k the servers ran where the engine says it exactly (its changes are marked).
 */
final class RecipeCharts {
  private static final Logger logger = LoggerFactory.getLogger(RecipeCharts.class);

  static final int STEPS = 720;

  private RecipeCharts() {}

  /** One step of a span: span / 720, whole seconds, at least 30 s. */
  static Duration step(Duration span) {
    return Duration.ofSeconds(Math.max(30, span.toSeconds() / STEPS));
  }

  static Optional<ChartData> fetch(
      Optional<Policy> policy, Duration span, Daemon.Wiring wiring, Instant now) {
    if (policy.isEmpty() || policy.get().numSpeculativeTokens() == 0) {
      return Optional.empty();
    }
    Policy p = policy.get();
    Duration step = step(span);
    Duration window = step.compareTo(Duration.ofMinutes(1)) < 0 ? Duration.ofMinutes(1) : step;
    Instant to = Instant.ofEpochSecond(now.getEpochSecond());
    Instant from = to.minus(span);
    EngineProfile profile = EngineProfile.of(p.engine());
    QueryScope scope = QueryScope.of(p, window);
    try {
      List<ChartData.Point> acceptance =
          single(wiring, profile.query(Signal.ACCEPTANCE_RATE, scope), from, to, step);
      List<ChartData.Point> length =
          single(wiring, profile.query(Signal.MEAN_ACCEPTED_LENGTH, scope), from, to, step);
      List<List<ChartData.Point>> positions = new ArrayList<>();
      if (profile.supported().contains(Signal.POSITION_ACCEPTANCE)) {
        for (int i = 0; i < p.numSpeculativeTokens(); i++) {
          positions.add(new ArrayList<>());
        }
        QueryResult r =
            wiring
                .prometheus()
                .queryRange(profile.query(Signal.POSITION_ACCEPTANCE, scope), from, to, step);
        if (r instanceof QueryResult.Matrix m) {
          for (Series s : m.series()) {
            int i = position(s.labels().get("position"));
            if (i >= 0 && i < positions.size()) {
              positions.set(i, points(s));
            }
          }
        }
      }
      List<ActiveK.Change> kChanges = List.of();
      Optional<ActiveK> k = profile.activeK().filter(ActiveK::exact);
      if (k.isPresent()
          && wiring.prometheus().queryRange(k.get().rangeQuery(scope), from, to, step)
              instanceof QueryResult.Matrix m
          && !m.series().isEmpty()) {
        kChanges = k.get().changes(m.series().get(0));
      }
      return Optional.of(new ChartData(from, to, step, acceptance, length, positions, kChanges));
    } catch (PrometheusException | RuntimeException e) {
      // The page says "no data over this span"; the evaluation reports the datasource itself.
      logger.debug("charts of {} over {} not read: {}", p.recipe(), span, e.getMessage());
      return Optional.empty();
    }
  }

  private static List<ChartData.Point> single(
      Daemon.Wiring wiring, String promql, Instant from, Instant to, Duration step)
      throws PrometheusException {
    QueryResult r = wiring.prometheus().queryRange(promql, from, to, step);
    if (r instanceof QueryResult.Matrix m && !m.series().isEmpty()) {
      return points(m.series().get(0));
    }
    return List.of();
  }

  private static List<ChartData.Point> points(Series s) {
    List<ChartData.Point> out = new ArrayList<>();
    for (Series.Point p : s.points()) {
      if (Double.isFinite(p.value())) {
        out.add(new ChartData.Point(Instant.ofEpochMilli(Math.round(p.time() * 1000)), p.value()));
      }
    }
    return out;
  }

  private static int position(String label) {
    try {
      return label == null ? -1 : Integer.parseInt(label);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
