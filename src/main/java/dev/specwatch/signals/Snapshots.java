package dev.specwatch.signals;

import dev.specwatch.model.Policy;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.Sample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Maps a group's query results to one recipe's snapshot: its signals, state and breaches. */
final class Snapshots {
  private Snapshots() {}

  /**
   * @param speedup the measured speed-up at the recipe's load, for its {@code thresholds.speedup};
   *     null when it has none or it could not be measured
   */
  static RecipeSnapshot snapshot(
      Policy p, Map<QueryKey, Map<Policy, List<Sample>>> results, Duration step, Double speedup) {
    Double drafts = single(results, Signal.DRAFTS_IN_WINDOW, null, p);
    Double[] positions = new Double[p.numSpeculativeTokens()];
    for (Sample s :
        results
            .getOrDefault(new QueryKey(Signal.POSITION_ACCEPTANCE, null), Map.of())
            .getOrDefault(p, List.of())) {
      Integer index = position(s);
      if (index != null && index < positions.length && Double.isFinite(s.value())) {
        positions[index] = s.value();
      }
    }
    SignalValues signals =
        new SignalValues(
            single(results, Signal.ACCEPTANCE_RATE, null, p),
            single(results, Signal.MEAN_ACCEPTED_LENGTH, null, p),
            Arrays.asList(positions),
            single(results, Signal.DRAFT_TOKENS_PER_SECOND, null, p),
            single(results, Signal.ACCEPTED_TOKENS_PER_SECOND, null, p),
            single(results, Signal.GENERATION_TOKENS_PER_SECOND, null, p),
            drafts,
            single(results, Signal.RUNNING_REQUESTS, null, p),
            single(results, Signal.DRAFT_OVERHEAD, null, p),
            speedup);
    Optional<Baseline> baseline = Optional.empty();
    Optional<Duration> regressionBaseline =
        p.thresholds().regression().map(Policy.Regression::baseline);
    Optional<Duration> throughputBaseline =
        p.thresholds().throughput().map(Policy.Throughput::baseline);
    if (regressionBaseline.isPresent() || throughputBaseline.isPresent()) {
      Duration r = regressionBaseline.orElse(null);
      Duration t = throughputBaseline.orElse(null);
      baseline =
          Optional.of(
              new Baseline(
                  regressionBaseline.orElse(t),
                  r == null ? null : single(results, Signal.ACCEPTANCE_RATE, r, p),
                  r == null ? null : single(results, Signal.DRAFTS_IN_WINDOW, r, p),
                  t == null ? null : single(results, Signal.GENERATION_TOKENS_PER_SECOND, t, p),
                  t == null ? null : single(results, Signal.RUNNING_REQUESTS, t, p),
                  r == null ? null : single(results, Signal.ACCEPTANCE_SPREAD, r, p)));
    }
    Optional<String> impossible = BadData.check(p, results, signals);
    if (impossible.isPresent()) {
      return new RecipeSnapshot(
          p.recipe(),
          p.engine().key(),
          RecipeState.ERROR,
          signals,
          List.of(),
          baseline,
          impossible);
    }
    RecipeState state;
    List<Breach> breaches = new ArrayList<>();
    if (p.numSpeculativeTokens() == 0) {
      // A deployment without speculation: judged on its throughput alone (its rules do that).
      Double generation = signals.generationTokensPerSecond();
      state =
          generation == null
              ? RecipeState.NO_DATA
              : generation <= 0 ? RecipeState.IDLE : RecipeState.OK;
    } else if (drafts == null) {
      state = RecipeState.NO_DATA;
    } else if (drafts <= 0) {
      state = RecipeState.IDLE;
    } else if (drafts < p.minDrafts()) {
      state = RecipeState.LOW_TRAFFIC;
    } else {
      breaches = breaches(p, signals);
      state = breaches.isEmpty() ? RecipeState.OK : RecipeState.BREACH;
    }
    RecipeSnapshot snapshot =
        new RecipeSnapshot(
            p.recipe(), p.engine().key(), state, signals, breaches, baseline, Optional.empty());
    if (results.containsKey(new QueryKey(Signal.STEP_DRAFT_TOKENS, null)) && p.usesIncrements()) {
      Double[] perPosition = new Double[p.numSpeculativeTokens()];
      for (Sample s :
          results
              .getOrDefault(new QueryKey(Signal.STEP_ACCEPTED_PER_POSITION, null), Map.of())
              .getOrDefault(p, List.of())) {
        Integer index = position(s);
        if (index != null && index < perPosition.length && Double.isFinite(s.value())) {
          perPosition[index] = s.value();
        }
      }
      snapshot =
          snapshot.withIncrements(
              new Increments(
                  step,
                  single(results, Signal.STEP_DRAFT_TOKENS, null, p),
                  single(results, Signal.STEP_ACCEPTED_TOKENS, null, p),
                  single(results, Signal.STEP_DRAFTS, null, p),
                  Arrays.asList(perPosition)));
    }
    return snapshot;
  }

  /** Every threshold of the policy the signals are past. Absent values breach nothing. */
  static List<Breach> breaches(Policy p, SignalValues signals) {
    List<Breach> out = new ArrayList<>();
    for (ThresholdReading reading : ThresholdReading.of(p)) {
      Double value = reading.valueIn(signals);
      if (reading.breachedBy(value)) {
        Threshold th = reading.threshold();
        out.add(new Breach(reading.rule(), reading.position(), value, th.level(), th.direction()));
      }
    }
    return out;
  }

  private static Integer position(Sample s) {
    String text = s.labels().get("position");
    if (text == null) {
      return null;
    }
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The recipe's one value of a signal; null when absent or not finite. */
  private static Double single(
      Map<QueryKey, Map<Policy, List<Sample>>> results,
      Signal signal,
      Duration baseline,
      Policy p) {
    List<Sample> samples =
        results.getOrDefault(new QueryKey(signal, baseline), Map.of()).getOrDefault(p, List.of());
    if (samples.isEmpty()) {
      return null;
    }
    double value = samples.get(0).value();
    return Double.isFinite(value) ? value : null;
  }
}
