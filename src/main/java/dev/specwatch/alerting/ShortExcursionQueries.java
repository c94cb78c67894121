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
   * each sample ({@link #counted}); samples whose block has half the reference traffic make the
   * record's periods and fit, the others (the quiet hours) count where deeper than it. The history
   * looked at is the learned one or, when that is shorter, the last {@link
   * ShortExcursions#LOOKBACK}: a recipe's excursions follow its week (a team's load tests on
   * weekday afternoons), which a day or three of learning may not hold; the blocks of the days
   * before {@code from} (for the incident filter) come from two more range queries.
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
    java.util.NavigableMap<Instant, Double> traffic = new java.util.TreeMap<>();
    for (StepSample s : samples) {
      if (s.blockTrials() >= NoiseFit.MIN_TRIALS && Double.isFinite(s.blockSuccesses())) {
        blocks.put(s.at(), s.blockSuccesses() / s.blockTrials());
      }
      if (Double.isFinite(s.blockTrials())) {
        traffic.put(s.at(), s.blockTrials());
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
                traffic.putIfAbsent(Instant.ofEpochMilli(t), trials);
                Double successes = accepted.get(t);
                if (successes != null && trials >= NoiseFit.MIN_TRIALS) {
                  blocks.putIfAbsent(Instant.ofEpochMilli(t), successes / trials);
                }
              });
      from = lookFrom;
    }
    double busy = ShortExcursions.MIN_TRAFFIC * m.referenceTrials() * blockSteps(block, step);
    Instant first = blocks.keySet().stream().min(Instant::compareTo).orElse(at);
    List<NoiseModel.ShortExcursion> out = new java.util.ArrayList<>();
    for (Duration length : ShortExcursions.lengths(step)) {
      Map<Instant, Double> lows = new HashMap<>();
      Map<Instant, Double> quiet = new HashMap<>();
      for (Series s :
          Learner.range(
              api, counted(profile, p, m, length, step, sample, change), from, at, sample)) {
        for (Series.Point point : s.points()) {
          Instant t = Instant.ofEpochMilli(Math.round(point.time() * 1000));
          Map.Entry<Instant, Double> b = traffic.ceilingEntry(t);
          if (b != null && b.getKey().isBefore(t.plus(block)) && b.getValue() >= busy) {
            lows.merge(t, point.value(), Math::min);
          } else if (!t.minus(sample).minus(length).isBefore(first)) {
            // A window reaching back before the history's first block stands for fewer minutes
            // than its length: a deployment's first minutes are no quiet hour.
            quiet.merge(t, point.value(), Math::min);
          }
        }
      }
      NoiseModel.ShortExcursion record =
          ShortExcursions.of(
              length,
              lows,
              quiet,
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
   * The lowest acceptance of a window of {@code length} ending at each evaluation step within each
   * sample, as the record counts it ({@link ShortExcursions#counted}): a window under the half line
   * N raised by c·(1/√D − 1/√N) ({@link ShortExcursions#quietNoise}), one with no drafts left out.
   * One subquery (a {@code min_over_time}), so a query has the samples' points however short the
   * windows; it reads the accepted tokens once and the drafts twice.
   */
  static String counted(
      EngineProfile profile,
      Policy p,
      NoiseModel m,
      Duration length,
      Duration step,
      Duration sample,
      Policy.Change change) {
    QueryScope scope = QueryScope.of(p, length);
    String drafts = "((" + profile.query(Signal.STEP_DRAFT_TOKENS, scope) + ") > 0)";
    double c = ShortExcursions.quietNoise(m, length, change.falseAlarmInterval());
    double atLine = c / Math.sqrt((double) ShortExcursions.minTrials(m, length, step));
    return "min_over_time((("
        + profile.query(Signal.STEP_ACCEPTED_TOKENS, scope)
        + ") / "
        + drafts
        + " + clamp_min("
        + number(c)
        + " / sqrt"
        + drafts
        + " - "
        + number(atLine)
        + ", 0))["
        + PromQl.range(sample)
        + ":"
        + PromQl.range(step)
        + "])";
  }

  private static String number(double x) {
    return String.format(java.util.Locale.ROOT, "%.9f", x);
  }

  /** The evaluation steps in a block. */
  private static long blockSteps(Duration block, Duration step) {
    return block.toMillis() / step.toMillis();
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
