package dev.specwatch.testing;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import java.time.Duration;
import java.time.Instant;

/**
 * Transitions and alerts for store and outbox tests: an acceptance alert, built as the engine does.
 */
public final class Transitions {
  private Transitions() {}

  /** The acceptance alert whose id is {@code alert}: its firing or resolve at {@code at}. */
  public static Transition acceptance(long seq, String alert, Transition.Kind kind, Instant at) {
    return Transition.builder(AlertKey.parse(alert), kind, at)
        .sequence(seq)
        .reason("acceptance_rate 0.410 below 0.450")
        .value(0.41)
        .threshold(0.45)
        .window(Duration.ofMinutes(5))
        .severity(dev.specwatch.model.Severity.WARNING)
        .build();
  }

  /** The acceptance alert of {@code recipe}: its firing or resolve at {@code at}. */
  public static Transition acceptanceOf(String recipe, long seq, Transition.Kind kind, Instant at) {
    return acceptance(seq, recipe + "/acceptance_rate", kind, at);
  }

  /** The acceptance alert of recipe qwen, firing (and notified) since {@code since}. */
  public static ActiveAlert firingAcceptance(Instant since) {
    return ActiveAlert.firing(
        AlertKey.of("qwen", "acceptance_rate", null),
        dev.specwatch.model.Severity.WARNING,
        since,
        0.41,
        0.45);
  }
}
