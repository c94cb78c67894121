package dev.specwatch.alerting;

import dev.specwatch.detect.DropTest;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.ThresholdReading;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One alerting rule of one recipe: gives a {@link Verdict} for each snapshot. The engine only moves
 * alerts between pending, firing and resolved on these verdicts; the maths lives in the rules. To
 * add a rule type: a record here, a case in {@link #of(Policy)}, its config in PolicyReader.
 */
public sealed interface Rule
    permits ThresholdRule,
        RegressionRule,
        ThroughputRule,
        SloBurnRule,
        ChangeRule,
        SequentialThresholdRule {
  /** Which rule this is. */
  dev.specwatch.model.RuleName ruleName();

  /** The rule's name in alert ids, labels and messages, e.g. {@code acceptance_rate}. */
  default String name() {
    return ruleName().id();
  }

  /** The draft position for per-position rules, else null. */
  default Integer position() {
    return null;
  }

  /**
   * The verdict for this evaluation and, for rules that decide sequentially, their test's new state
   * (persisted by the engine and handed back as {@code context.prior()} next time).
   */
  Judged judge(RecipeSnapshot snapshot, Context context);

  /** What a rule sees besides the snapshot: the time, the recipe's learned model, its state. */
  record Context(Instant at, RecipeModel model, DropTest.State prior) {}

  /** A verdict and the rule's test state after it (null for rules without one). */
  record Judged(Verdict verdict, DropTest.State detector) {
    static Judged of(Verdict verdict) {
      return new Judged(verdict, null);
    }
  }

  /** The severity of an alert raised now. */
  Severity severity(RecipeSnapshot snapshot);

  /** How long a breach must last before the alert fires; the policy's {@code for} by default. */
  default Duration forDuration(Policy policy) {
    return policy.forDuration();
  }

  /** This rule's alert for {@code recipe}: stable within the daemon's life and across restarts. */
  default AlertKey key(String recipe) {
    return AlertKey.of(recipe, name(), position());
  }

  /** The policy's rules, in a stable order. */
  static List<Rule> of(Policy p) {
    Severity fallback = p.notification().severity();
    Policy.Thresholds t = p.thresholds();
    List<Rule> rules = new ArrayList<>();
    for (ThresholdReading reading : ThresholdReading.of(p)) {
      Severity severity = reading.threshold().severity().orElse(fallback);
      rules.add(
          p.detection().sequential() && reading.threshold().floor()
              ? new SequentialThresholdRule(
                  reading, severity, p.numSpeculativeTokens(), p.detection().falseAlarmInterval())
              : new ThresholdRule(reading, severity));
    }
    t.regression().ifPresent(r -> rules.add(new RegressionRule(r, r.severity().orElse(fallback))));
    p.slo().ifPresent(slo -> rules.add(new SloBurnRule(fallback)));
    t.throughput().ifPresent(r -> rules.add(new ThroughputRule(r, r.severity().orElse(fallback))));
    t.change().ifPresent(c -> rules.add(new ChangeRule(c, c.severity().orElse(fallback))));
    return rules;
  }
}
