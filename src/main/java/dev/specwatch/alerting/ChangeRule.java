package dev.specwatch.alerting;

import dev.specwatch.detect.DropTest;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.signals.Increments;
import dev.specwatch.signals.RecipeSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Learned change detection ({@code thresholds.change}): the acceptance rate of each evaluation
 * step's counter increments against the recipe's learned normal, by a bank of CUSUM tests for drops
 * of 1, 2 and 4 × {@code min_relative_drop}, calibrated to one false alarm per {@code
 * false_alarm_interval} on healthy traffic ({@link DropTest}). Fires while the drop is sustained;
 * clears when the level is back. docs/DETECTION.md.
 */
public record ChangeRule(Policy.Change change, Severity severity) implements Rule {
  @Override
  public String name() {
    return "change";
  }

  @Override
  public Severity severity(RecipeSnapshot snapshot) {
    return severity;
  }

  /** The test design for evaluation steps of {@code step}. */
  DropTest test(Duration step) {
    double r = change.minRelativeDrop();
    List<Double> shifts =
        r * 4 < 0.9 ? List.of(r, 2 * r, 4 * r) : r * 2 < 0.9 ? List.of(r, 2 * r) : List.of(r);
    return new DropTest(
        shifts, DropTest.steps(change.falseAlarmInterval(), step), DropTest.Recovery.TO_REFERENCE);
  }

  @Override
  public Judged judge(RecipeSnapshot s, Context c) {
    Optional<Verdict> none = Verdict.withoutEvidence(s);
    if (none.isPresent()) {
      return new Judged(none.get(), c.prior());
    }
    if (c.model() == null || c.model().model() == null) {
      String why = c.model() == null ? "learning: not learned yet" : c.model().status();
      return new Judged(Verdict.unknown(why), c.prior());
    }
    Increments inc = s.increments().orElse(null);
    if (inc == null || inc.draftTokens() == null || inc.acceptedTokens() == null) {
      return new Judged(Verdict.unknown("no step increments"), c.prior());
    }
    NoiseModel m = c.model().model();
    DropTest test = test(inc.step());
    double reference = m.levelAt(c.at());
    SequentialTests.Thresholds h = SequentialTests.thresholds(test, m, m.level(), m.level());
    DropTest.State prior =
        c.prior() == null ? DropTest.State.initial(test.shifts().size()) : c.prior();
    DropTest.State next =
        test.step(
            prior,
            m,
            reference,
            reference,
            h.drop(),
            h.recover(),
            c.at(),
            inc.acceptedTokens(),
            inc.draftTokens());
    double floor = reference * (1 - change.minRelativeDrop());
    String design =
        "sequential test, at most one false alarm per " + Verdict.days(change.falseAlarmInterval());
    if (next.alarmed()) {
      double observed = next.observed();
      double expected = next.expected();
      return new Judged(
          Verdict.breached(
              observed,
              expected * (1 - change.minRelativeDrop()),
              String.format(
                  Locale.ROOT,
                  "change: acceptance %.3f since %s against its learned %.3f (%+.1f %%; %s)",
                  observed,
                  SequentialTests.time(next.since()),
                  expected,
                  (observed / expected - 1) * 100,
                  design)),
          next);
    }
    double now = inc.draftTokens() > 0 ? inc.acceptedTokens() / inc.draftTokens() : reference;
    return new Judged(
        Verdict.clear(
            now,
            floor,
            String.format(
                Locale.ROOT,
                "recovered: acceptance back at its learned level %.3f (last step %.3f)",
                reference,
                now)),
        next);
  }
}
