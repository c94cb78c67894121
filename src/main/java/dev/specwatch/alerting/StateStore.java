package dev.specwatch.alerting;

import java.io.IOException;

/**
 * Durable alert state. The file store serves one process; a PostgreSQL store (shared by replicas)
 * is planned behind the same interface. Implementations are thread-safe.
 */
public interface StateStore {
  /** The saved state, or {@link AlertState#empty()} when there is none or it was unreadable. */
  AlertState load() throws IOException;

  /** Replaces the saved state atomically: after a crash the old or the new state is read. */
  void save(AlertState state) throws IOException;
}
