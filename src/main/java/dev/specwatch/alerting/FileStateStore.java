package dev.specwatch.alerting;

import com.fasterxml.jackson.core.JacksonException;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link StateStore} in {@code <state.dir>/alerts.json}, written atomically and fsynced. A file
 * that cannot be read (corrupt, or from a newer schema version) is moved aside, logged, and
 * replaced by an empty state: specwatch keeps running and says so.
 */
public final class FileStateStore implements StateStore {
  private static final Logger logger = LoggerFactory.getLogger(FileStateStore.class);
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final Path file;
  private final Clock clock;

  public FileStateStore(Path dir, Clock clock) {
    this.file = dir.resolve("alerts.json");
    this.clock = clock;
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized AlertState load() throws IOException {
    try {
      AlertState state = DurableFiles.JSON.readValue(Files.readAllBytes(file), AlertState.class);
      if (state.version() != AlertState.VERSION) {
        return moveAside(
            "it has schema version "
                + state.version()
                + ", this specwatch reads "
                + AlertState.VERSION);
      }
      return state;
    } catch (NoSuchFileException e) {
      return AlertState.empty();
    } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
      return moveAside("it is not valid (" + e.getClass().getSimpleName() + ")");
    }
  }

  private AlertState moveAside(String why) throws IOException {
    Path aside =
        file.resolveSibling(file.getFileName() + ".corrupt-" + STAMP.format(clock.instant()));
    Files.move(file, aside);
    logger.error(
        "alert state {} cannot be used because {}; moved it to {} and starting with no"
            + " active alerts (firing alerts will be re-detected and notified again)",
        file,
        why,
        aside);
    return AlertState.empty();
  }

  @Override
  public synchronized void save(AlertState state) throws IOException {
    DurableFiles.writeAtomically(file, state);
  }
}
