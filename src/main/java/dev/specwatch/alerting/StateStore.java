package dev.specwatch.alerting;

import java.io.IOException;
import java.util.Optional;

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
   * The state as saved now when other processes may have saved it since this one last did (the
   * shared database, where a save may also be refused with {@link
   * dev.specwatch.store.ConflictException}): read before every evaluation. Empty for a store only
   * this process writes, whose state is the one it holds.
   */
  default Optional<AlertState> savedElsewhere() throws IOException {
    return Optional.empty();
  }
}
