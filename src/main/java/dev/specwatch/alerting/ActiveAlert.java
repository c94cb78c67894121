package dev.specwatch.alerting;

import java.time.Instant;

/**
 * One pending or firing alert, as persisted. Times are wall-clock instants so timers survive a
 * restart.
 *
 * @param id its {@link AlertKey}'s stored form: {@code recipe/rule}, {@code recipe/rule[i]} or
 *     {@code specwatch/rule}
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
    dev.specwatch.model.Severity severity,
    boolean notified) {

  /** What makes this alert unique (its {@link #id} is the key's stored form). */
  public AlertKey key() {
    return new AlertKey(recipe, rule, position);
  }

  /** A new alert of {@code key} whose condition first held at {@code now}. */
  static ActiveAlert pending(
      AlertKey key, dev.specwatch.model.Severity severity, Verdict v, Instant now) {
    return of(key, severity, AlertPhase.PENDING, now, null, v.value(), v.threshold(), false);
  }

  /**
   * An alert of {@code key} that fires, notified, at {@code now} with no pending period and no
   * value to compare (specwatch's own alerts), its condition having held since {@code since}.
   */
  public static ActiveAlert firingAtOnce(
      AlertKey key, dev.specwatch.model.Severity severity, Instant since, Instant now) {
    return of(key, severity, AlertPhase.FIRING, since, now, null, 0, true);
  }

  /**
   * A firing, notified alert of {@code key} with its last value against its threshold, as the
   * engine leaves one after it fired at {@code since}: for state written by another path (a test,
   * an import) that must look like the engine's.
   */
  public static ActiveAlert firing(
      AlertKey key,
      dev.specwatch.model.Severity severity,
      Instant since,
      Double value,
      double threshold) {
    return of(key, severity, AlertPhase.FIRING, since, since, value, threshold, true);
  }

  private static ActiveAlert of(
      AlertKey key,
      dev.specwatch.model.Severity severity,
      AlertPhase phase,
      Instant activeSince,
      Instant firingSince,
      Double value,
      double threshold,
      boolean notified) {
    return new ActiveAlert(
        key.id(),
        key.recipe(),
        key.rule(),
        key.position(),
        phase,
        activeSince,
        firingSince,
        null,
        null,
        value,
        threshold,
        severity,
        notified);
  }

  /** Still pending, with the latest value. */
  ActiveAlert stillPending(Verdict v) {
    return with(AlertPhase.PENDING, null, null, null, v.value(), v.threshold(), false);
  }

  /** Starts firing at {@code now}; {@code notified} is false while a silence covers it. */
  ActiveAlert fired(Instant now, Verdict v, boolean notified) {
    return with(AlertPhase.FIRING, now, null, null, v.value(), v.threshold(), notified);
  }

  /** Still firing: breached again (or held by hysteresis), so any clear timer restarts. */
  ActiveAlert stillFiring(Verdict v) {
    return with(AlertPhase.FIRING, firingSince, null, null, v.value(), v.threshold(), notified);
  }

  /** Firing, but clear since {@code since}: resolves after keep_firing_for. */
  ActiveAlert clearing(Instant since, Verdict v) {
    return with(AlertPhase.FIRING, firingSince, since, null, v.value(), v.threshold(), notified);
  }

  /** Without verdict since {@code since}: the alert keeps its phase and values. */
  ActiveAlert frozen(Instant since) {
    return with(phase, firingSince, clearSince, since, value, threshold, notified);
  }

  /** A firing alert whose notification went out late (a silence ended). */
  ActiveAlert notifiedLate() {
    return with(phase, firingSince, clearSince, frozenSince, value, threshold, true);
  }

  private ActiveAlert with(
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
