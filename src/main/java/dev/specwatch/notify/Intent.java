package dev.specwatch.notify;

import dev.specwatch.alerting.Transition;
import java.time.Instant;
import java.util.Locale;

/**
 * One notification to deliver: a transition for one notifier. Durable in the {@link Outbox} from
 * before the first attempt until delivered or given up.
 *
 * @param kind what to send: the firing, the resolve, or a repeat while still firing
 * @param attempts failed attempts so far
 * @param nextAttemptAt not before this time (backoff, Retry-After, pacing)
 * @param progress the step of a delivery of several calls that already landed at the receiver
 *     (Slack's resolve: {@code edited} once the firing message shows the resolve, its thread reply
 *     still to go), kept in the outbox so that no retry, by any replica or after a restart, repeats
 *     it; null while nothing landed
 */
public record Intent(
    String id,
    String notifier,
    Kind kind,
    Transition transition,
    int attempts,
    Instant createdAt,
    Instant nextAttemptAt,
    String lastError,
    String progress) {

  /**
   * Its key in an outbox (the database's primary key, a worker's sets): the id with its alert, as
   * an id alone may repeat across alerts.
   */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public String outboxKey() {
    return id + "|" + transition.alertId();
  }

  public enum Kind {
    FIRING,
    RESOLVED,
    REPEAT
  }

  public static Intent of(String notifier, Kind kind, Transition t, Instant now) {
    String id =
        String.format(
            "%020d-%s-%s",
            t.sequence(),
            kind.name().toLowerCase(Locale.ROOT),
            notifier.replaceAll("[^A-Za-z0-9_.-]", "_"));
    return new Intent(id, notifier, kind, t, 0, now, now, null, null);
  }

  /** Ordering key: intents of one alert for one notifier are delivered in sequence. */
  public String stream() {
    return notifier + "|" + transition.alertId();
  }

  /** Not attempted yet: the receiver's pacing asks to wait until {@code next}. */
  public Intent pacedUntil(Instant next) {
    return new Intent(
        id, notifier, kind, transition, attempts, createdAt, next, lastError, progress);
  }

  /** Part of the delivery landed ({@code step}); the rest goes at {@code next}. */
  public Intent progressed(String step, Instant next) {
    return new Intent(id, notifier, kind, transition, attempts, createdAt, next, lastError, step);
  }

  /** The same intent under another id (a free outbox name). */
  public Intent withId(String other) {
    return new Intent(
        other, notifier, kind, transition, attempts, createdAt, nextAttemptAt, lastError, progress);
  }

  public Intent retryAt(Instant next, String error) {
    return new Intent(
        id, notifier, kind, transition, attempts + 1, createdAt, next, error, progress);
  }
}
