package dev.specwatch.signals;

import dev.specwatch.model.Policy;
import dev.specwatch.model.Threshold;
import java.util.ArrayList;
import java.util.List;

/**
 * One threshold of a policy and the signal it reads. The single place where "is this recipe below
 * its threshold" is decided: {@code check}'s breaches and the alert engine's threshold rules both
 * read it.
 *
 * @param rule acceptance_rate, mean_accepted_length or position_acceptance
 * @param position the draft position for position_acceptance, else null
 */
public record ThresholdReading(String rule, Integer position, Threshold threshold) {

  /** Every threshold of the policy, in a stable order (rates, length, positions). */
  public static List<ThresholdReading> of(Policy p) {
    List<ThresholdReading> out = new ArrayList<>();
    Policy.Thresholds t = p.thresholds();
    t.acceptanceRate().ifPresent(th -> out.add(new ThresholdReading("acceptance_rate", null, th)));
    t.meanAcceptedLength()
        .ifPresent(th -> out.add(new ThresholdReading("mean_accepted_length", null, th)));
    t.positionAcceptance()
        .forEach(
            (position, th) -> out.add(new ThresholdReading("position_acceptance", position, th)));
    t.speedup().ifPresent(s -> out.add(new ThresholdReading("speedup", null, s.threshold())));
    return out;
  }

  /** The value this threshold reads, or null when the signal has none (idle, not exported). */
  public Double valueIn(SignalValues v) {
    return switch (rule) {
      case "acceptance_rate" -> v.acceptanceRate();
      case "mean_accepted_length" -> v.meanAcceptedLength();
      case "speedup" -> v.speedup();
      default ->
          position < v.positionAcceptance().size() ? v.positionAcceptance().get(position) : null;
    };
  }

  /** Whether the value is below the threshold; an absent value breaches nothing. */
  public boolean breachedBy(Double value) {
    return value != null && threshold.breachedBy(value);
  }

  /** {@code acceptance_rate}, {@code position_acceptance[0]}: the signal's name in messages. */
  public String label() {
    return position == null ? rule : rule + "[" + position + "]";
  }
}
