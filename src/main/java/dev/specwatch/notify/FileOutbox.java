package dev.specwatch.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.alerting.Transition;
import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Outbox} as one JSON file per intent in {@code <state.dir>/outbox/}, named so that a
 * directory listing sorts in sequence order. Each file is written to a temp name, fsynced and
 * renamed; delivery deletes it; giving up moves it to {@code outbox/failed/}. An existing entry is
 * never overwritten by a new intent.
 *
 * <p>A damaged entry is rebuilt from the transition history when it names a firing or resolve that
 * the history holds; otherwise it is moved to {@code failed/} and reported as lost. A delivered
 * intent whose file cannot be deleted (state directory not writable) is remembered in memory, so
 * this process never delivers it again, and deleted when the directory is writable again.
 */
public final class FileOutbox implements Outbox {
  private static final Logger logger = LoggerFactory.getLogger(FileOutbox.class);
  static final ObjectMapper JSON = DurableFiles.JSON;
  private static final Pattern NAME =
      Pattern.compile("(\\d{20})-(firing|resolved|repeat)-(.+?)(?:[-~]\\d+)?\\.json");

  private final Path dir;
  private final Path failedDir;
  private final LongFunction<Optional<Transition>> history;
  private final StateHealth health;
  private final Clock clock;

  /** Delivered, but the file could not be deleted yet. */
  private final Set<String> gone = new HashSet<>();

  /** Being delivered by a worker right now. */
  private final Set<String> claimed = new HashSet<>();

  public FileOutbox(Path stateDir) throws IOException {
    this(stateDir, seq -> Optional.empty(), new StateHealth(stateDir), Clock.systemUTC());
  }

  /**
   * @param history the transition with a sequence number, to rebuild damaged entries
   */
  public FileOutbox(
      Path stateDir, LongFunction<Optional<Transition>> history, StateHealth health, Clock clock)
      throws IOException {
    this.dir = stateDir.resolve("outbox");
    this.failedDir = dir.resolve("failed");
    this.history = history;
    this.health = health;
    this.clock = clock;
    Files.createDirectories(failedDir);
  }

  public Path dir() {
    return dir;
  }

  @Override
  public synchronized void add(List<Intent> intents) throws IOException {
    for (Intent intent : intents) {
      Intent free = intent;
      for (int n = 1; Files.exists(file(free)) || gone.contains(free.id()); n++) {
        free = intent.withId(intent.id() + "~" + n); // '~' sorts after ".json": queued after it
      }
      if (!free.id().equals(intent.id())) {
        logger.warn(
            "outbox entry {} exists already; queued the new notification as {} (both are kept)",
            intent.id(),
            free.id());
      }
      write(free);
    }
    fsync(dir);
  }

  @Override
  public synchronized List<Intent> pending() throws IOException {
    try {
      deleteGone();
    } catch (IOException e) {
      // Still not deletable: they stay out of the list (never sent again), deleted later.
      // The status API and /metrics read this list, so it must not fail here.
      logger.debug("delivered outbox entries not deleted yet: {}", e.getMessage());
    }
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*.json")) {
      stream.forEach(files::add);
    }
    files.sort(null);
    List<Intent> out = new ArrayList<>(files.size());
    for (Path file : files) {
      String id = file.getFileName().toString().replaceFirst("\\.json$", "");
      if (gone.contains(id)) {
        continue;
      }
      try {
        out.add(JSON.readValue(Files.readAllBytes(file), Intent.class));
      } catch (IOException | RuntimeException e) {
        rebuild(file, e).ifPresent(out::add);
      }
    }
    return out;
  }

  /** A damaged entry: rebuilt from the history when it can be, else moved aside as lost. */
  private Optional<Intent> rebuild(Path file, Exception e) throws IOException {
    Matcher m = NAME.matcher(file.getFileName().toString());
    Optional<Transition> t =
        m.matches() && !m.group(2).equals("repeat")
            ? history.apply(Long.parseLong(m.group(1)))
            : Optional.empty();
    Path aside = failedDir.resolve(file.getFileName() + ".unreadable");
    if (t.isPresent()) {
      Intent rebuilt =
          Intent.of(
              m.group(3),
              m.group(2).equals("firing") ? Intent.Kind.FIRING : Intent.Kind.RESOLVED,
              t.get(),
              clock.instant());
      rebuilt = rebuilt.withId(file.getFileName().toString().replaceFirst("\\.json$", ""));
      Files.copy(file, aside, StandardCopyOption.REPLACE_EXISTING);
      write(rebuilt);
      logger.warn(
          "outbox entry {} was unreadable ({}); rebuilt it from the transition history (the"
              + " damaged file is kept as {})",
          file.getFileName(),
          e.getClass().getSimpleName(),
          aside);
      return Optional.of(rebuilt);
    }
    Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
    health.recovered(
        new StateHealth.Recovery(
            file.toString(),
            aside.toString(),
            "this notification is lost ("
                + e.getClass().getSimpleName()
                + "; the transition history does not hold it)",
            clock.instant()));
    return Optional.empty();
  }

  @Override
  public synchronized boolean claim(Intent intent) {
    // Delivered or set aside since the caller listed it (by the worker of the config before a
    // reload): its file is gone, and it must not be sent again.
    if (gone.contains(intent.id()) || !Files.exists(file(intent))) {
      return false;
    }
    return claimed.add(intent.id());
  }

  @Override
  public synchronized void release(Intent intent) {
    claimed.remove(intent.id());
  }

  @Override
  public synchronized void delivered(Intent intent) throws IOException {
    gone.add(intent.id());
    deleteGone();
  }

  private void deleteGone() throws IOException {
    if (gone.isEmpty()) {
      return;
    }
    for (String id : List.copyOf(gone)) {
      try {
        Files.deleteIfExists(dir.resolve(id + ".json"));
      } catch (IOException e) {
        throw new DeletionException(dir.resolve(id + ".json"), e);
      }
      gone.remove(id);
    }
    fsync(dir);
  }

  @Override
  public synchronized void reschedule(Intent intent) throws IOException {
    write(intent);
  }

  @Override
  public synchronized void failed(Intent intent, String reason) throws IOException {
    write(intent.retryAt(intent.nextAttemptAt(), reason));
    Files.move(
        file(intent),
        failedDir.resolve(file(intent).getFileName()),
        StandardCopyOption.REPLACE_EXISTING);
    fsync(dir);
  }

  private Path file(Intent intent) {
    return dir.resolve(intent.id() + ".json");
  }

  private void write(Intent intent) throws IOException {
    DurableFiles.writeAtomically(file(intent), intent);
  }

  private static void fsync(Path directory) {
    DurableFiles.fsyncDirectory(directory);
  }

  /** A delivered entry could not be deleted; names the file and the reason. */
  private static final class DeletionException extends IOException {
    private static final long serialVersionUID = 1L;

    DeletionException(Path file, IOException cause) {
      super("cannot delete " + file + ": " + StateHealth.reason(cause), cause);
    }
  }
}
