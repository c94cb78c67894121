package dev.specwatch.alerting;

import dev.specwatch.detect.DropTest;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Severity;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.Increments;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.ThresholdReading;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A threshold rule under {@code detection: sequential}: instead of waiting for a rate window to
 * cross, each evaluation step's counter increments are evidence, and the rule fires once the
 * evidence that the value is below {@code below} reaches the confidence of one false alarm per
 * {@code false_alarm_interval} (were the value exactly at the threshold); it clears once the
 * evidence that the value is above the clear level does. Mean accepted length L is tested as the
 * acceptance rate (L − 1) / k it implies (vLLM drafts k tokens per step); per-position acceptance
 * as accepted-at-position over drafts.
 */
public record SequentialThresholdRule(
    ThresholdReading reading, Severity severity, int k, Duration falseAlarmInterval)
    implements Rule {
  /** Relative shifts below the threshold (and above the clear level) tested at once. */
  static final List<Double> SHIFTS = List.of(0.05, 0.15, 0.4);

  /** Overdispersion assumed until the recipe's own is learned. */
  static final double DEFAULT_PHI = 2;

  @Override
  public dev.specwatch.model.RuleName ruleName() {
    return reading.ruleName();
  }

  @Override
  public Integer position() {
    return reading.position();
  }

  @Override
  public Severity severity(RecipeSnapshot snapshot) {
    return severity;
  }

  /** To the tested proportion: mean accepted length L is an acceptance of (L − 1) / k. */
  private double proportion(double value) {
    return reading.kind() == ThresholdReading.Kind.MEAN_ACCEPTED_LENGTH ? (value - 1) / k : value;
  }

  private double value(double proportion) {
    return reading.kind() == ThresholdReading.Kind.MEAN_ACCEPTED_LENGTH
        ? 1 + proportion * k
        : proportion;
  }

  @Override
  public Judged judge(RecipeSnapshot s, Context c) {
    Optional<Verdict> none = Verdict.withoutEvidence(s);
    if (none.isPresent()) {
      return new Judged(none.get(), c.prior());
    }
    Increments inc = s.increments().orElse(null);
    boolean byPosition = reading.position() != null;
    Double successes =
        inc == null
            ? null
            : byPosition
                ? (reading.position() < inc.acceptedPerPosition().size()
                    ? inc.acceptedPerPosition().get(reading.position())
                    : null)
                : inc.acceptedTokens();
    Double trials = inc == null ? null : byPosition ? inc.drafts() : inc.draftTokens();
    if (successes == null || trials == null) {
      return new Judged(Verdict.unknown("no step increments"), c.prior());
    }
    Threshold th = reading.threshold();
    double below = proportion(th.level());
    double clear = proportion(th.clearLevel());
    NoiseModel m = noise(c, byPosition, trials);
    DropTest test =
        new DropTest(
            SHIFTS, DropTest.steps(falseAlarmInterval, inc.step()), DropTest.Recovery.ABOVE_CLEAR);
    SequentialTests.Thresholds h = SequentialTests.thresholds(test, m, below, clear);
    DropTest.State prior = c.prior() == null ? DropTest.State.initial(SHIFTS.size()) : c.prior();
    DropTest.State next =
        test.step(prior, m, below, clear, h.drop(), h.recover(), c.at(), successes, trials);
    String name = reading.label();
    double step = trials > 0 ? value(successes / trials) : Double.NaN;
    if (next.alarmed()) {
      double observed = value(next.observed());
      return new Judged(
          Verdict.breached(
              observed,
              th.level(),
              String.format(
                  Locale.ROOT,
                  "%s %.3f below %.3f since %s (sequential test on %s steps)",
                  name,
                  observed,
                  th.level(),
                  SequentialTests.time(next.since()),
                  Durations.format(inc.step()))),
          next);
    }
    return new Judged(
        Verdict.clear(
            step,
            th.level(),
            () -> String.format(Locale.ROOT, "%s %.3f above %.3f", name, step, th.clearLevel())),
        next);
  }

  /**
   * The recipe's learned overdispersion, without its wander (the test asks where the value is now,
   * wander included), or a default until learned. Thresholds are calibrated at busy traffic.
   */
  private NoiseModel noise(Context c, boolean byPosition, double trials) {
    NoiseModel learned = c.model() == null ? null : c.model().model();
    if (learned != null) {
      double reference = learned.referenceTrials() / (byPosition ? k : 1);
      return NoiseModel.binomial(learned.phi(), Math.max(reference, 1));
    }
    // Powers of two keep the threshold cache small.
    double reference = Math.pow(2, Math.ceil(Math.log(Math.max(trials, 64)) / Math.log(2)));
    return NoiseModel.binomial(DEFAULT_PHI, reference);
  }
}
