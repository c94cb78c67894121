package dev.specwatch.notify;

/**
 * Sends notifications to one receiver. Implementations are thread-safe and never throw for a
 * receiver's failure: they return a {@link DeliveryResult}. Messages never contain secrets.
 */
public sealed interface Notifier
    permits SlackNotifier, LogNotifier, WebhookNotifier, AlertmanagerNotifier, GrafanaNotifier {
  /** The notifier's name from the config (default: its type). */
  String name();

  DeliveryResult send(Intent intent);

  /** Whether this notifier sends repeats while an alert keeps firing. */
  default boolean repeats() {
    return false;
  }
}
