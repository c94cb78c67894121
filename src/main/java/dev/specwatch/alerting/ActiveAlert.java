package dev.specwatch.alerting;

import java.time.Instant;

/**
 * One pending or firing alert, as persisted. Times are wall-clock instants so timers survive a
 * restart.
 *
 * @param id stable: {@code recipe/rule} or {@code recipe/position_acceptance[i]}
 * @param activeSince when the condition first held (start of pending)
 * @param firingSince when it started firing; null while pending
 * @param clearSince while firing: when the value first cleared the threshold; null otherwise
 * @param frozenSince when the recipe stopped giving a verdict (idle, low traffic, no data,
 *     datasource error); null while it gives one
 * @param notified whether the firing was notified (false while silenced)
 */
public record ActiveAlert(
    String id,
    String recipe,
    String rule,
    Integer position,
    AlertPhase phase,
    Instant activeSince,
    Instant firingSince,
    Instant clearSince,
    Instant frozenSince,
    Double value,
    double threshold,
    String severity,
    boolean notified) {

  ActiveAlert with(
      AlertPhase phase,
      Instant firingSince,
      Instant clearSince,
      Instant frozenSince,
      Double value,
      double threshold,
      boolean notified) {
    return new ActiveAlert(
        id,
        recipe,
        rule,
        position,
        phase,
        activeSince,
        firingSince,
        clearSince,
        frozenSince,
        value,
        threshold,
        severity,
        notified);
  }
}
