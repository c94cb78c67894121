package dev.specwatch.notify;

import dev.specwatch.model.Redaction;
import java.time.Duration;

/**
 * What one delivery attempt achieved. Reasons are scrubbed of credentials when made, since they
 * often quote the receiver's answer.
 */
public sealed interface DeliveryResult {
  /** The receiver accepted the notification. */
  record Delivered() implements DeliveryResult {}

  /**
   * Try again: a transport error, 5xx or 429. {@code after} is the receiver's minimum (Retry-After)
   * or zero to use the worker's backoff.
   */
  record Retry(Duration after, String reason) implements DeliveryResult {
    public Retry {
      reason = Redaction.scrub(reason);
    }
  }

  /**
   * Not attempted: the receiver's own rate limit (e.g. Slack's one message per second per channel)
   * says wait {@code after}. Not a failure: no failure is counted or logged.
   */
  record Paced(Duration after) implements DeliveryResult {}

  /**
   * Part of a delivery of several calls landed ({@code step}, e.g. Slack's edit of the firing
   * message); the rest goes after {@code after}. The worker records the step with the intent, so no
   * later attempt repeats it. Not a failure.
   */
  record Progressed(String step, Duration after) implements DeliveryResult {}

  /**
   * Not sent yet, by design: a grouped alert waits for the others of its storm (group_wait), for
   * the next edit of its group's message (group_interval), or for the next slot of the channel
   * after a write of its group that landed. Not a failure, and it holds no other notification.
   */
  record Waiting(Duration after) implements DeliveryResult {}

  /** Will never succeed as configured (4xx other than 429, Slack's ok:false); logged once. */
  record Permanent(String reason) implements DeliveryResult {
    public Permanent {
      reason = Redaction.scrub(reason);
    }
  }

  static DeliveryResult delivered() {
    return new Delivered();
  }

  static DeliveryResult retry(String reason) {
    return new Retry(Duration.ZERO, reason);
  }
}
