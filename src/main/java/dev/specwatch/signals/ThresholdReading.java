package dev.specwatch.signals;

import dev.specwatch.model.Policy;
import dev.specwatch.model.RuleName;
import dev.specwatch.model.Threshold;
import java.util.ArrayList;
import java.util.List;

/**
 * One threshold of a policy and the signal it reads. The single place where "is this recipe below
 * its threshold" is decided: {@code check}'s breaches and the alert engine's threshold rules both
 * read it.
 *
 * @param kind which value the threshold reads
 * @param position the draft position for position_acceptance, else null
 */
public record ThresholdReading(Kind kind, Integer position, Threshold threshold) {

  /** The values a threshold can read; each is its rule's name in config, ids and messages. */
  public enum Kind {
    ACCEPTANCE_RATE(RuleName.ACCEPTANCE_RATE),
    MEAN_ACCEPTED_LENGTH(RuleName.MEAN_ACCEPTED_LENGTH),
    ACCEPTANCE_RATE_ABOVE(RuleName.ACCEPTANCE_RATE_ABOVE),
    MEAN_ACCEPTED_LENGTH_ABOVE(RuleName.MEAN_ACCEPTED_LENGTH_ABOVE),
    POSITION_ACCEPTANCE(RuleName.POSITION_ACCEPTANCE),
    SPEEDUP(RuleName.SPEEDUP);

    private final RuleName rule;

    Kind(RuleName rule) {
      this.rule = rule;
    }

    public RuleName rule() {
      return rule;
    }
  }

  /** The rule's name: {@code acceptance_rate}, {@code position_acceptance}, … */
  public String rule() {
    return kind.rule().id();
  }

  /** The rule this threshold is of. */
  public RuleName ruleName() {
    return kind.rule();
  }

  /** Every threshold of the policy, in a stable order (rates, length, positions, ceilings). */
  public static List<ThresholdReading> of(Policy p) {
    List<ThresholdReading> out = new ArrayList<>();
    Policy.Thresholds t = p.thresholds();
    t.acceptanceRate()
        .ifPresent(th -> out.add(new ThresholdReading(Kind.ACCEPTANCE_RATE, null, th)));
    t.meanAcceptedLength()
        .ifPresent(th -> out.add(new ThresholdReading(Kind.MEAN_ACCEPTED_LENGTH, null, th)));
    t.positionAcceptance()
        .forEach(
            (position, th) ->
                out.add(new ThresholdReading(Kind.POSITION_ACCEPTANCE, position, th)));
    t.speedup().ifPresent(s -> out.add(new ThresholdReading(Kind.SPEEDUP, null, s.threshold())));
    t.ceilings()
        .acceptanceRate()
        .ifPresent(th -> out.add(new ThresholdReading(Kind.ACCEPTANCE_RATE_ABOVE, null, th)));
    t.ceilings()
        .meanAcceptedLength()
        .ifPresent(th -> out.add(new ThresholdReading(Kind.MEAN_ACCEPTED_LENGTH_ABOVE, null, th)));
    return out;
  }

  /** The value this threshold reads, or null when the signal has none (idle, not exported). */
  public Double valueIn(SignalValues v) {
    return switch (kind) {
      case ACCEPTANCE_RATE, ACCEPTANCE_RATE_ABOVE -> v.acceptanceRate();
      case MEAN_ACCEPTED_LENGTH, MEAN_ACCEPTED_LENGTH_ABOVE -> v.meanAcceptedLength();
      case SPEEDUP -> v.speedup();
      case POSITION_ACCEPTANCE ->
          position < v.positionAcceptance().size() ? v.positionAcceptance().get(position) : null;
    };
  }

  /**
   * Whether the value is past the line (below a floor, above a ceiling); absent breaches nothing.
   */
  public boolean breachedBy(Double value) {
    return value != null && threshold.breachedBy(value);
  }

  /** {@code acceptance_rate}, {@code position_acceptance[0]}: the signal's name in messages. */
  public String label() {
    return position == null ? rule() : rule() + "[" + position + "]";
  }
}
