package dev.specwatch.notify;

import dev.specwatch.alerting.Transition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Sends notifications to one receiver. Implementations are thread-safe and never throw for a
 * receiver's failure: they return a {@link DeliveryResult}. Messages never contain secrets.
 */
public interface Notifier {
  /** The notifier's name from the config (default: its type). */
  String name();

  DeliveryResult send(Intent intent);

  /**
   * Sends an intent whose previous attempt may have reached the receiver ({@code uncertain}: the
   * process died, or another replica's lease ran out, before its outcome was recorded). A receiver
   * that can tell (Slack: the message's metadata) adopts what it already has instead of sending
   * twice; the others send again.
   */
  default DeliveryResult send(Intent intent, boolean uncertain) {
    return send(intent);
  }

  /** How often to repeat while an alert keeps firing; empty: this notifier never repeats. */
  default Optional<Duration> repeatInterval() {
    return Optional.empty();
  }

  /**
   * Whether {@code firing}, still firing, is due a reminder from this notifier at {@code now}: the
   * notifier keeps what it last sent (Slack: the message's thread), so it alone can tell. The
   * service queues one {@link Intent.Kind#REPEAT} at a time per alert and notifier.
   */
  default boolean repeatDue(Transition firing, Instant now) {
    return false;
  }

  /**
   * What this notifier runs beside its deliveries (Slack's Socket Mode for its buttons), given what
   * the daemon offers; empty for most. Started and closed with the notification service.
   */
  default Optional<Interactions> interactions(Interactions.Context context) {
    return Optional.empty();
  }

  /**
   * Re-sends every still-firing alert, for receivers that expire alerts not re-sent (Alertmanager);
   * called after every evaluation. Others have nothing to do.
   */
  default DeliveryResult resendFiring(List<Transition> firing, Instant now) {
    return DeliveryResult.delivered();
  }
}
