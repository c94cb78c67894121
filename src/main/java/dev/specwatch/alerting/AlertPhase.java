package dev.specwatch.alerting;

/** An alert that exists is pending or firing; an inactive alert is simply absent from the state. */
public enum AlertPhase {
  /** The condition holds but not yet for the rule's {@code for} duration. */
  PENDING,
  /** The condition held for {@code for}; a notification was (or will be) sent. */
  FIRING
}
