package dev.specwatch.alerting;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * An alert starting or stopping to fire: what notifiers send.
 *
 * @param sequence increasing across the process' life (persisted); with the alert id it makes an
 *     idempotency key
 * @param reason why, for people: "acceptance_rate 0.410 below 0.450", "recovered", "idle for 1h"
 * @param value the value that caused the transition; null when there is none (idle, datasource)
 * @param since firing: when the condition started; resolved: when the alert started firing
 * @param silenced a silence or maintenance window covers it: keep state, do not notify
 * @param labels the policy's extra labels, for routing
 * @param match the recipe's match labels (e.g. model_name, for dashboard links)
 * @param positionAcceptance the recipe's per-position acceptance at the transition, if known
 * @param signals the recipe's signals at the transition ({@code acceptance_rate}, {@code
 *     mean_accepted_length}, {@code draft_tokens_per_second}), those that had a value
 */
public record Transition(
    long sequence,
    String alertId,
    String recipe,
    String rule,
    Integer position,
    Kind kind,
    String reason,
    Double value,
    double threshold,
    Duration window,
    Instant since,
    Instant at,
    dev.specwatch.model.Severity severity,
    boolean silenced,
    Map<String, String> labels,
    Map<String, String> match,
    List<Double> positionAcceptance,
    Map<String, Double> signals) {

  /** A transition without signals (specwatch's own alerts, tests, files from before them). */
  public Transition(
      long sequence,
      String alertId,
      String recipe,
      String rule,
      Integer position,
      Kind kind,
      String reason,
      Double value,
      double threshold,
      Duration window,
      Instant since,
      Instant at,
      dev.specwatch.model.Severity severity,
      boolean silenced,
      Map<String, String> labels,
      Map<String, String> match,
      List<Double> positionAcceptance) {
    this(
        sequence,
        alertId,
        recipe,
        rule,
        position,
        kind,
        reason,
        value,
        threshold,
        window,
        since,
        at,
        severity,
        silenced,
        labels,
        match,
        positionAcceptance,
        Map.of());
  }

  public enum Kind {
    FIRING,
    RESOLVED
  }

  public Transition {
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    match = match == null ? Map.of() : Map.copyOf(match);
    positionAcceptance =
        positionAcceptance == null
            ? List.of()
            : Collections.unmodifiableList(new ArrayList<>(positionAcceptance));
    signals =
        signals == null ? Map.of() : Collections.unmodifiableMap(new java.util.TreeMap<>(signals));
  }

  /** The alert this transition is of (its {@link #alertId} is the key's stored form). */
  public AlertKey key() {
    return new AlertKey(recipe, rule, position);
  }

  /** The same transition with the recipe's match labels and per-position acceptance. */
  public Transition withContext(
      Map<String, String> match, List<Double> positions, Map<String, Double> values) {
    return new Transition(
        sequence, alertId, recipe, rule, position, kind, reason, value, threshold, window, since,
        at, severity, silenced, labels, match, positions, values);
  }
}
