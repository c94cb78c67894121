package dev.specwatch.alerting;

import static dev.specwatch.alerting.Verdict.fmt;

import dev.specwatch.model.Severity;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.ThresholdReading;

/** A signal below its {@code below} fires; above {@code clear_above} (hysteresis) it clears. */
public record ThresholdRule(ThresholdReading reading, Severity severity) implements Rule {
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

  @Override
  public Judged judge(RecipeSnapshot s, Context context) {
    return Judged.of(judge(s));
  }

  Verdict judge(RecipeSnapshot s) {
    return Verdict.withoutEvidence(s).orElseGet(() -> judge(reading.valueIn(s.signals())));
  }

  Verdict judge(Double value) {
    if (value == null) {
      return Verdict.unknown("no value");
    }
    Threshold th = reading.threshold();
    String name = reading.label();
    if (reading.breachedBy(value)) {
      return Verdict.breached(
          value, th.below(), name + " " + fmt(value) + " below " + fmt(th.below()));
    }
    if (value > th.clearLevel()) {
      return Verdict.clear(
          value, th.below(), name + " " + fmt(value) + " above " + fmt(th.clearLevel()));
    }
    return Verdict.hold(
        value, th.below(), name + " " + fmt(value) + " not yet above " + fmt(th.clearLevel()));
  }
}
