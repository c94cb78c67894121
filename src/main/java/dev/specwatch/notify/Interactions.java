package dev.specwatch.notify;

import dev.specwatch.alerting.Transition;
import dev.specwatch.store.KeyedStore;

/**
 * What a notifier runs beside its deliveries, started and stopped with them by the notification
 * service: Slack's Socket Mode for its buttons. Most notifiers have none ({@link
 * Notifier#interactions}).
 */
public interface Interactions extends AutoCloseable {
  /**
   * What the daemon offers a notifier's interactions.
   *
   * @param firing the alerts firing now, by id
   * @param silencer the daemon's silences
   */
  record Context(KeyedStore<Transition> firing, Silencer silencer) {}

  /** Starts (a connection, a listener); a failure is logged, never thrown. */
  void start();

  /** Told of each transition as the engine makes it, before any delivery. */
  default void transitioned(Transition t) {}

  @Override
  void close();
}
