package dev.specwatch.alerting;

import java.io.IOException;

/**
 * Durable alert state: a file for one process, or one row per evaluation shard of the shared
 * database. Implementations are thread-safe.
 */
public interface StateStore {
  /** The saved state, or {@link AlertState#empty()} when there is none or it was unreadable. */
  AlertState load() throws IOException;

  /** Replaces the saved state atomically: after a crash the old or the new state is read. */
  void save(AlertState state) throws IOException;

  /**
   * Whether other processes write this state too (the shared database): it is then read again
   * before every evaluation, and a save may be refused with {@link
   * dev.specwatch.store.ConflictException} when another replica saved it since.
   */
  default boolean shared() {
    return false;
  }
}
