package dev.specwatch.notify;

/**
 * Told of every delivery outcome, e.g. to count them in specwatch's own metrics. Called on the
 * delivery thread; implementations must be quick and thread-safe.
 */
public interface DeliveryListener {
  DeliveryListener NONE = new DeliveryListener() {};

  /** The receiver accepted a notification. */
  default void delivered(String notifier) {}

  /** An attempt failed: it is retried, or (permanent) given up. */
  default void failed(String notifier) {}
}
