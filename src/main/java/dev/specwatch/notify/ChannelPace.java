package dev.specwatch.notify;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Who may write to a Slack channel next. Slack takes about one write a second a channel; every
 * write (a post, an edit, a thread reply) takes the channel's slot for the length of the call and
 * gives it back with the time the next write may go (a second later, or the Retry-After of a 429).
 * Holding the slot is also what makes a grouped message's read-modify-write safe: nobody else
 * writes to the channel meanwhile. In one process it is a map in memory ({@link #local()}); with
 * {@code state.backend: postgres} a row per channel in the shared database, so three replicas pace
 * as one.
 */
public interface ChannelPace {
  /**
   * Takes the channel's slot until {@code lease} runs out (a holder that dies mid-call frees it
   * then). Empty: taken, write and then {@link #release}; otherwise the time to ask again.
   */
  Optional<Instant> take(String channel, Instant now, Duration lease);

  /** The write is over: the channel's next write may go at {@code next}. */
  void release(String channel, Instant next);

  /** The pace of one process. */
  static ChannelPace local() {
    return new ChannelPace() {
      private final Map<String, Instant> notBefore = new HashMap<>();
      private final Map<String, Instant> heldUntil = new HashMap<>();

      @Override
      public synchronized Optional<Instant> take(String channel, Instant now, Duration lease) {
        Instant held = heldUntil.get(channel);
        if (held != null && now.isBefore(held)) {
          return Optional.of(now.plusMillis(100));
        }
        Instant next = notBefore.get(channel);
        if (next != null && now.isBefore(next)) {
          return Optional.of(next);
        }
        heldUntil.put(channel, now.plus(lease));
        return Optional.empty();
      }

      @Override
      public synchronized void release(String channel, Instant next) {
        heldUntil.remove(channel);
        notBefore.put(channel, next);
      }
    };
  }
}
