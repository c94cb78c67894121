package dev.specwatch.alerting;

import dev.specwatch.detect.NoiseFit;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.detect.ShortExcursions;
import dev.specwatch.detect.StepSample;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Series;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.PromQl;
import dev.specwatch.signals.QueryScope;
import dev.specwatch.signals.Signal;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link Learner}'s queries for a recipe's record of short excursions ({@link ShortExcursions};
 * docs/DETECTION.md, "Short excursions"), and how its status says it.
 */
final class ShortExcursionQueries {
  private ShortExcursionQueries() {}

  /**
   * The record of the history's short excursions ({@link ShortExcursions}): one range query per
   * length, the lowest acceptance of windows of that length ending at each evaluation step within
   * each sample (a {@code min_over_time} subquery, so a query has the samples' points however short
   * the windows), among windows with at least half the reference traffic. The history looked at is
   * the learned one or, when that is shorter, the last {@link ShortExcursions#LOOKBACK}: a recipe's
   * excursions follow its week (a team's load tests on weekday afternoons), which a day or three of
   * learning may not hold; the blocks of the days before {@code from} (for the incident filter)
   * come from two more range queries.
   */
  static List<NoiseModel.ShortExcursion> record(
      PrometheusApi api,
      Policy p,
      NoiseModel m,
      List<StepSample> samples,
      Instant from,
      Instant at,
      Duration sample,
      Duration step,
      Policy.Change change)
      throws PrometheusException {
    EngineProfile profile = EngineProfile.of(p.engine());
    Map<Instant, Double> blocks = new HashMap<>();
    for (StepSample s : samples) {
      if (s.blockTrials() >= NoiseFit.MIN_TRIALS && Double.isFinite(s.blockSuccesses())) {
        blocks.put(s.at(), s.blockSuccesses() / s.blockTrials());
      }
    }
    Duration block = Learner.block(step);
    Instant lookFrom = lookFrom(from, at, block);
    if (lookFrom.isBefore(from)) {
      QueryScope scope = QueryScope.of(p, block);
      Map<Long, Double> accepted =
          Learner.sums(
              Learner.range(
                  api, profile.query(Signal.STEP_ACCEPTED_TOKENS, scope), lookFrom, from, block));
      Learner.sums(
              Learner.range(
                  api, profile.query(Signal.STEP_DRAFT_TOKENS, scope), lookFrom, from, block))
          .forEach(
              (t, trials) -> {
                Double successes = accepted.get(t);
                if (successes != null && trials >= NoiseFit.MIN_TRIALS) {
                  blocks.putIfAbsent(Instant.ofEpochMilli(t), successes / trials);
                }
              });
      from = lookFrom;
    }
    List<NoiseModel.ShortExcursion> out = new java.util.ArrayList<>();
    for (Duration length : ShortExcursions.lengths(step)) {
      QueryScope scope = QueryScope.of(p, length);
      String promql =
          "min_over_time((("
              + profile.query(Signal.STEP_ACCEPTED_TOKENS, scope)
              + ") / (("
              + profile.query(Signal.STEP_DRAFT_TOKENS, scope)
              + ") > "
              + ShortExcursions.minTrials(m, length, step)
              + "))["
              + PromQl.range(sample)
              + ":"
              + PromQl.range(step)
              + "])";
      Map<Instant, Double> lows = new HashMap<>();
      for (Series s : Learner.range(api, promql, from, at, sample)) {
        for (Series.Point point : s.points()) {
          lows.merge(
              Instant.ofEpochMilli(Math.round(point.time() * 1000)), point.value(), Math::min);
        }
      }
      NoiseModel.ShortExcursion record =
          ShortExcursions.of(
              length,
              lows,
              blocks,
              m,
              ChangeRule.GROSS * change.minRelativeDrop(),
              change.falseAlarmInterval());
      if (record != null) {
        out.add(record);
      }
    }
    return out;
  }

  /**
   * Where the record's history starts: {@code from} (the learned history's start), or {@link
   * ShortExcursions#LOOKBACK} before {@code at} (aligned to the block) when that is earlier.
   */
  static Instant lookFrom(Instant from, Instant at, Duration block) {
    Instant week =
        Instant.ofEpochMilli(
            Math.floorDiv(at.minus(ShortExcursions.LOOKBACK).toEpochMilli(), block.toMillis())
                * block.toMillis());
    return week.isBefore(from) ? week : from;
  }

  /**
   * "; short windows of the last 7 days fall -15 % (2m), -13 % (5m), -11 % (10m), -9 % (20m), -8 %
   * (30m) once per false_alarm_interval", or nothing: the record's history is the learned one or
   * the last {@link ShortExcursions#LOOKBACK}, whichever is longer.
   */
  static String status(NoiseModel m) {
    if (m.shortExcursions() == null || m.shortExcursions().isEmpty()) {
      return "";
    }
    Duration history =
        m.history().compareTo(ShortExcursions.LOOKBACK) < 0
            ? ShortExcursions.LOOKBACK
            : m.history();
    return "; short windows of the last "
        + Math.round(history.toHours() / 24.0)
        + " days fall "
        + m.shortExcursions().stream()
            .map(
                e ->
                    String.format(
                        java.util.Locale.ROOT,
                        "%.0f %% (%s)",
                        e.depth() * 100,
                        Durations.format(e.length())))
            .collect(java.util.stream.Collectors.joining(", "))
        + " once per false_alarm_interval";
  }
}
