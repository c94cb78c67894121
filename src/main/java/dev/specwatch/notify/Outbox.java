package dev.specwatch.notify;

import java.io.IOException;
import java.util.List;

/**
 * Durable queue of notifications. {@link #add} returns only when the intents would survive a crash.
 * Implementations are thread-safe.
 */
public interface Outbox {
  void add(List<Intent> intents) throws IOException;

  /** Every intent not yet delivered or given up, in creation (sequence) order. */
  List<Intent> pending() throws IOException;

  /**
   * Claims an intent for one delivery attempt; false while another worker holds it (the worker of
   * the config before a reload, still waiting on a receiver), or when it was delivered or set aside
   * since it was listed. Released with {@link #release}.
   */
  default boolean claim(Intent intent) {
    return true;
  }

  default void release(Intent intent) {}

  /**
   * Whether the last {@link #claim} of this intent took over a claim that ran out (the replica
   * holding it died mid-send, or hung past its lease): its outcome is unknown. Asked once.
   */
  default boolean tookOver(Intent intent) {
    return false;
  }

  /**
   * The pending intents only this process delivers, which it may set aside when their notifier is
   * gone: all of a file outbox; none of the shared database's (an intent of a notifier this process
   * does not know is another replica's, not to be dropped).
   */
  default List<Intent> pendingOfThisProcessAlone() throws IOException {
    return pending();
  }

  /**
   * Records a delivery. Once called, {@link #pending()} never returns the intent again in this
   * process, even when the record cannot be written yet (it is retried).
   */
  void delivered(Intent intent) throws IOException;

  void reschedule(Intent intent) throws IOException;

  /** Gives up on an intent (kept aside for inspection). */
  void failed(Intent intent, String reason) throws IOException;
}
