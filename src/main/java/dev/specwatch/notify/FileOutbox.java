package dev.specwatch.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Outbox} as one JSON file per intent in {@code <state.dir>/outbox/}, named so that a
 * directory listing sorts in sequence order. Each file is written to a temp name, fsynced and
 * renamed; delivery deletes it; giving up moves it to {@code outbox/failed/}. An unreadable file is
 * moved to {@code failed/} with a log line rather than blocking the queue.
 */
public final class FileOutbox implements Outbox {
  private static final Logger logger = LoggerFactory.getLogger(FileOutbox.class);
  static final ObjectMapper JSON = DurableFiles.JSON;

  private final Path dir;
  private final Path failedDir;

  public FileOutbox(Path stateDir) throws IOException {
    this.dir = stateDir.resolve("outbox");
    this.failedDir = dir.resolve("failed");
    Files.createDirectories(failedDir);
  }

  public Path dir() {
    return dir;
  }

  @Override
  public synchronized void add(List<Intent> intents) throws IOException {
    for (Intent intent : intents) {
      write(intent);
    }
    fsync(dir);
  }

  @Override
  public synchronized List<Intent> pending() throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*.json")) {
      stream.forEach(files::add);
    }
    files.sort(null);
    List<Intent> out = new ArrayList<>(files.size());
    for (Path file : files) {
      try {
        out.add(JSON.readValue(Files.readAllBytes(file), Intent.class));
      } catch (IOException | RuntimeException e) {
        Path aside = failedDir.resolve(file.getFileName() + ".unreadable");
        Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
        logger.error(
            "outbox entry {} is unreadable ({}); moved to {}",
            file.getFileName(),
            e.getClass().getSimpleName(),
            aside);
      }
    }
    return out;
  }

  @Override
  public synchronized void delivered(Intent intent) throws IOException {
    Files.deleteIfExists(file(intent));
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
}
