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
public sealed interface Notifier
    permits SlackNotifier, LogNotifier, WebhookNotifier, AlertmanagerNotifier, GrafanaNotifier {
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
   * Re-sends every still-firing alert, for receivers that expire alerts not re-sent (Alertmanager);
   * called after every evaluation. Others have nothing to do.
   */
  default DeliveryResult resendFiring(List<Transition> firing, Instant now) {
    return DeliveryResult.delivered();
  }
}
