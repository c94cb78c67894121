package dev.specwatch.testing;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.Transition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Transitions and alerts for store and outbox tests: an acceptance alert of recipe qwen. */
public final class Transitions {
  private Transitions() {}

  public static Transition acceptance(long seq, String alert, Transition.Kind kind, Instant at) {
    return acceptance(seq, alert, "qwen", kind, at);
  }

  /** The acceptance alert of {@code recipe}: its firing or resolve at {@code at}. */
  public static Transition acceptanceOf(String recipe, long seq, Transition.Kind kind, Instant at) {
    return acceptance(seq, recipe + "/acceptance_rate", recipe, kind, at);
  }

  private static Transition acceptance(
      long seq, String alert, String recipe, Transition.Kind kind, Instant at) {
    return new Transition(
        seq,
        alert,
        recipe,
        "acceptance_rate",
        null,
        kind,
        "acceptance_rate 0.410 below 0.450",
        0.41,
        0.45,
        Duration.ofMinutes(5),
        at,
        at,
        dev.specwatch.model.Severity.WARNING,
        false,
        Map.of(),
        Map.of(),
        List.of());
  }

  /** The acceptance alert of recipe qwen, firing (and notified) since {@code since}. */
  public static ActiveAlert firingAcceptance(Instant since) {
    return new ActiveAlert(
        "qwen/acceptance_rate",
        "qwen",
        "acceptance_rate",
        null,
        AlertPhase.FIRING,
        since,
        since,
        null,
        null,
        0.41,
        0.45,
        dev.specwatch.model.Severity.WARNING,
        true);
  }
}
