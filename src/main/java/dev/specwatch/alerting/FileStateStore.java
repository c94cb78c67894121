package dev.specwatch.alerting;

import com.fasterxml.jackson.core.JacksonException;
import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;

/**
 * {@link StateStore} in {@code <state.dir>/alerts.json}, written atomically and fsynced. A file
 * that cannot be read (corrupt, or from a newer schema version) is moved aside, reported to {@link
 * StateHealth} (logged, served on {@code /api/v1/status}, raised as a {@code state_recovered}
 * self-alert) and replaced by an empty state: specwatch keeps running and says so.
 */
public final class FileStateStore implements StateStore {
  private final Path file;
  private final Clock clock;
  private final StateHealth health;

  public FileStateStore(Path dir, Clock clock) {
    this(dir, clock, new StateHealth(dir));
  }

  /**
   * @param health told about a damaged file moved aside
   */
  public FileStateStore(Path dir, Clock clock, StateHealth health) {
    this.file = dir.resolve("alerts.json");
    this.clock = clock;
    this.health = health;
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized AlertState load() throws IOException {
    try {
      AlertState state = DurableFiles.read(file, AlertState.class);
      if (state.version() != AlertState.VERSION) {
        return moveAside(
            "it has schema version "
                + state.version()
                + ", this specwatch reads "
                + AlertState.VERSION);
      }
      return state;
    } catch (NoSuchFileException e) {
      return AlertState.emptyAt(clock.instant());
    } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
      return moveAside("it is not valid (" + e.getClass().getSimpleName() + ")");
    }
  }

  private AlertState moveAside(String why) throws IOException {
    Path aside = DurableFiles.corruptSibling(file, clock.instant());
    Files.move(file, aside);
    health.recovered(
        new StateHealth.Recovery(
            file.toString(),
            aside.toString(),
            "it could not be used because "
                + why
                + "; starting with no active alerts (alerts still failing fire again after their"
                + " 'for'; sequence numbers continue from the clock, never repeating)",
            clock.instant()));
    return AlertState.emptyAt(clock.instant());
  }

  @Override
  public synchronized void save(AlertState state) throws IOException {
    DurableFiles.writeAtomically(file, state, DurableFiles.COMPACT);
  }
}
