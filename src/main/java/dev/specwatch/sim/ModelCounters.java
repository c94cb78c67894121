package dev.specwatch.sim;

import dev.specwatch.model.Engine;
import java.time.Duration;
import java.util.List;

/**
 * The counters one simulated model exposes at a moment, per engine, computed in closed form from
 * the scenario so that any moment can be asked for in any order (tests and backfills do).
 *
 * <p>Counts are floors of exact integrals of the phase rates since the last restart, divided evenly
 * between engines. That keeps vLLM's identities exact per engine: the per-position counts are
 * non-increasing in position and sum to the accepted tokens.
 */
@SuppressWarnings("ArrayRecordComponent") // values read once per scrape, never compared
public record ModelCounters(
    long drafts,
    long draftTokens,
    long acceptedTokens,
    long[] acceptedPerPosition,
    long generationTokens,
    long promptTokens,
    int positions,
    Duration sinceStartOfCounting) {

  /** Cumulative real-valued counts since time 0 of the scenario, before any restart. */
  @SuppressWarnings("ArrayRecordComponent")
  private record Totals(
      double drafts, double draftTokens, double generation, double prompt, double[] perPosition) {}

  /** Counters of one engine of {@code model} at {@code elapsed} since the simulator started. */
  static ModelCounters of(ModelScenario model, Duration elapsed) {
    double t = seconds(elapsed);
    double restartAt = lastRestart(model, t);
    int k = phaseAt(model, t).numSpeculativeTokens();
    Totals now = totals(model, t);
    Totals then = totals(model, restartAt);
    // vLLM splits traffic across data-parallel engines (Ray Serve across its replicas); SGLang's
    // counters are the tokenizer's, one per server for the whole model.
    int engines =
        model.engine() == Engine.VLLM || model.engine() == Engine.RAY_VLLM ? model.engines() : 1;
    // Accepted tokens over every position ever drafted since the restart: an engine that
    // shortens its drafts at run time (SGLang's adaptive speculation) keeps what it counted.
    long[] perPosition = new long[k];
    long accepted = 0;
    for (int i = 0; i < now.perPosition.length; i++) {
      long here = share(now.perPosition[i] - then.perPosition[i], engines);
      if (i < k) {
        perPosition[i] = here;
      }
      accepted += here;
    }
    return new ModelCounters(
        share(now.drafts - then.drafts, engines),
        share(now.draftTokens - then.draftTokens, engines),
        accepted,
        perPosition,
        share(now.generation - then.generation, engines),
        share(now.prompt - then.prompt, engines),
        k,
        Duration.ofMillis(Math.round((t - restartAt) * 1000)));
  }

  private static long share(double total, int engines) {
    // The epsilon absorbs float error so that an exact integer count is not floored to n - 1.
    return (long) Math.floor(Math.max(0, total) / engines + 1e-9);
  }

  /** The phase in force at t seconds. */
  static Phase phaseAt(ModelScenario model, double t) {
    double cycle = cycleSeconds(model);
    double offset = model.repeat() ? t % cycle : t;
    double start = 0;
    List<Phase> phases = model.phases();
    for (Phase phase : phases) {
      if (phase.duration() == null || offset < start + seconds(phase.duration())) {
        return phase;
      }
      start += seconds(phase.duration());
    }
    return phases.get(phases.size() - 1);
  }

  /** The phase whose acceptance a gauge shows at t: the current one, or the last with traffic. */
  static Phase lastActivePhase(ModelScenario model, double t) {
    Phase current = phaseAt(model, t);
    if (!current.idle()) {
      return current;
    }
    List<Phase> phases = model.phases();
    int index = phases.indexOf(current);
    for (int i = 1; i <= phases.size(); i++) {
      int j = index - i;
      if (j < 0 && !model.repeat()) {
        return null;
      }
      Phase candidate = phases.get(Math.floorMod(j, phases.size()));
      if (!candidate.idle()) {
        return candidate;
      }
    }
    return null;
  }

  /** When the counters last started from zero: the latest restart phase start at or before t. */
  static double lastRestart(ModelScenario model, double t) {
    double cycle = cycleSeconds(model);
    long cycles = model.repeat() ? (long) Math.floor(t / cycle) : 0;
    double base = cycles * cycle;
    double latest = -1;
    double start = 0;
    for (Phase phase : model.phases()) {
      if (phase.restart() && base + start <= t) {
        latest = base + start;
      }
      if (phase.duration() == null) {
        break;
      }
      start += seconds(phase.duration());
    }
    if (latest >= 0) {
      return latest;
    }
    if (cycles > 0) {
      // No restart yet in this cycle: the last one of the previous cycle, if any.
      start = 0;
      for (Phase phase : model.phases()) {
        if (phase.restart()) {
          latest = base - cycle + start;
        }
        start += seconds(phase.duration());
      }
    }
    return Math.max(0, latest);
  }

  private static Totals totals(ModelScenario model, double t) {
    int k = model.maxSpeculativeTokens();
    double[] acc = new double[k];
    double[] sums = new double[4];
    double cycle = cycleSeconds(model);
    double whole = 0;
    double offset = t;
    if (model.repeat()) {
      whole = Math.floor(t / cycle);
      offset = t - whole * cycle;
      if (whole > 0) {
        accumulate(model, cycle, sums, acc, whole);
      }
    }
    accumulate(model, offset, sums, acc, 1);
    return new Totals(sums[0], sums[1], sums[2], sums[3], acc);
  }

  /** Adds {@code times} x the integral of the phase rates over [0, until) of one cycle. */
  private static void accumulate(
      ModelScenario model, double until, double[] sums, double[] acc, double times) {
    double start = 0;
    for (Phase phase : model.phases()) {
      if (start >= until) {
        break;
      }
      double length =
          phase.duration() == null
              ? until - start
              : Math.min(seconds(phase.duration()), until - start);
      if (!phase.idle()) {
        double generationRate = phase.requestsPerSecond() * phase.outputTokensPerRequest();
        double draftRate = phase.speculative() ? generationRate / phase.meanAcceptedLength() : 0;
        double w = length * times;
        sums[0] += draftRate * w;
        sums[1] += draftRate * phase.numSpeculativeTokens() * w;
        sums[2] += generationRate * w;
        sums[3] += phase.requestsPerSecond() * phase.promptTokensPerRequest() * w;
        for (int i = 0; i < phase.positionAcceptance().size(); i++) {
          acc[i] += draftRate * phase.positionAcceptance().get(i) * w;
        }
      }
      if (phase.duration() == null) {
        break;
      }
      start += seconds(phase.duration());
    }
  }

  private static double cycleSeconds(ModelScenario model) {
    double total = 0;
    for (Phase phase : model.phases()) {
      if (phase.duration() == null) {
        return Double.POSITIVE_INFINITY;
      }
      total += seconds(phase.duration());
    }
    return total;
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
