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

  /**
   * The two notification hints a policy gives that travel with the transition in {@link #labels}
   * (where the stored form keeps them): where a runbook is, and which Slack channel to post to.
   * They are not labels to route or group on: {@link #routingLabels()} leaves them out.
   */
  public static final String RUNBOOK_URL = "runbook_url";

  public static final String SLACK_CHANNEL = "slack_channel";

  /** The policy's runbook, if it gives one. */
  public java.util.Optional<String> runbookUrl() {
    return java.util.Optional.ofNullable(labels.get(RUNBOOK_URL));
  }

  /** The policy's Slack channel ({@code notify.slack_channel}), if it gives one. */
  public java.util.Optional<String> slackChannel() {
    return java.util.Optional.ofNullable(labels.get(SLACK_CHANNEL));
  }

  /** The policy's labels without the notification hints: what receivers may route on. */
  public Map<String, String> routingLabels() {
    Map<String, String> out = new java.util.TreeMap<>(labels);
    out.remove(RUNBOOK_URL);
    out.remove(SLACK_CHANNEL);
    return out;
  }

  /** What the reason of a rule's resolve starts with (a notifier's header may say it instead). */
  public static final String RECOVERED = "recovered: ";

  /** The reason without its {@link #RECOVERED} prefix, if it has one. */
  public String detail() {
    return reason != null && reason.startsWith(RECOVERED)
        ? reason.substring(RECOVERED.length()).strip()
        : reason;
  }

  /** The alert this transition is of (its {@link #alertId} is the key's stored form). */
  public AlertKey key() {
    return new AlertKey(recipe, rule, position);
  }

  /** A transition of alert {@code key} at {@code at}; unset fields as {@link Builder} says. */
  public static Builder builder(AlertKey key, Kind kind, Instant at) {
    return new Builder(key, kind, at);
  }

  /**
   * A transition field by field. Unset: sequence 0, no reason, no value, threshold 0, no window,
   * {@code since} = {@code at}, severity warning, not silenced, no labels, match, per-position
   * acceptance or signals.
   */
  public static final class Builder {
    private final AlertKey key;
    private final Kind kind;
    private final Instant at;
    private long sequence;
    private String reason = "";
    private Double value;
    private double threshold;
    private Duration window;
    private Instant since;
    private dev.specwatch.model.Severity severity = dev.specwatch.model.Severity.WARNING;
    private boolean silenced;
    private Map<String, String> labels = Map.of();
    private Map<String, String> match = Map.of();
    private List<Double> positionAcceptance = List.of();
    private Map<String, Double> signals = Map.of();

    private Builder(AlertKey key, Kind kind, Instant at) {
      this.key = key;
      this.kind = kind;
      this.at = at;
    }

    public Builder sequence(long sequence) {
      this.sequence = sequence;
      return this;
    }

    public Builder reason(String reason) {
      this.reason = reason;
      return this;
    }

    public Builder value(Double value) {
      this.value = value;
      return this;
    }

    public Builder threshold(double threshold) {
      this.threshold = threshold;
      return this;
    }

    public Builder window(Duration window) {
      this.window = window;
      return this;
    }

    public Builder since(Instant since) {
      this.since = since;
      return this;
    }

    public Builder severity(dev.specwatch.model.Severity severity) {
      this.severity = severity;
      return this;
    }

    public Builder silenced(boolean silenced) {
      this.silenced = silenced;
      return this;
    }

    public Builder labels(Map<String, String> labels) {
      this.labels = labels;
      return this;
    }

    public Builder match(Map<String, String> match) {
      this.match = match;
      return this;
    }

    public Builder positionAcceptance(List<Double> positionAcceptance) {
      this.positionAcceptance = positionAcceptance;
      return this;
    }

    public Builder signals(Map<String, Double> signals) {
      this.signals = signals;
      return this;
    }

    public Transition build() {
      return new Transition(
          sequence,
          key.id(),
          key.recipe(),
          key.rule(),
          key.position(),
          kind,
          reason,
          value,
          threshold,
          window,
          since == null ? at : since,
          at,
          severity,
          silenced,
          labels,
          match,
          positionAcceptance,
          signals);
    }
  }

  /** The same transition with the recipe's match labels and per-position acceptance. */
  public Transition withContext(
      Map<String, String> match, List<Double> positions, Map<String, Double> values) {
    return new Transition(
        sequence, alertId, recipe, rule, position, kind, reason, value, threshold, window, since,
        at, severity, silenced, labels, match, positions, values);
  }
}
