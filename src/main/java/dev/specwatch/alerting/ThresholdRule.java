package dev.specwatch.alerting;

import static dev.specwatch.alerting.Verdict.fmt;

import dev.specwatch.model.Severity;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.ThresholdReading;

/**
 * A signal past its line fires: below a floor's {@code below}, above a ceiling's {@code above}; it
 * clears back past {@code clear_above} / {@code clear_below} (hysteresis), or the line itself.
 */
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
    String crossed = th.direction().word();
    String back = th.direction().clearWord();
    if (reading.breachedBy(value)) {
      return Verdict.breached(
          value, th.level(), name + " " + fmt(value) + " " + crossed + " " + fmt(th.level()));
    }
    if (th.clearedBy(value)) {
      return Verdict.clear(
          value,
          th.level(),
          () -> name + " " + fmt(value) + " " + back + " " + fmt(th.clearLevel()));
    }
    return Verdict.hold(
        value,
        th.level(),
        name + " " + fmt(value) + " not yet " + back + " " + fmt(th.clearLevel()));
  }
}
