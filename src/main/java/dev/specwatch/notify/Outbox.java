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

  void delivered(Intent intent) throws IOException;

  void reschedule(Intent intent) throws IOException;

  /** Gives up on an intent (kept aside for inspection). */
  void failed(Intent intent, String reason) throws IOException;
}
