package dev.specwatch.alerting;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Ad-hoc silences in {@code <state.dir>/silences.json}, shared by `specwatch silence` and the
 * daemon (which re-reads the file every evaluation). Writes are atomic.
 */
public final class SilenceStore {
  private final Path file;

  public SilenceStore(Path dir) {
    this.file = dir.resolve("silences.json");
  }

  public Path file() {
    return file;
  }

  public synchronized List<Silence> load() throws IOException {
    try {
      return DurableFiles.JSON.readValue(
          Files.readAllBytes(file), new TypeReference<List<Silence>>() {});
    } catch (NoSuchFileException e) {
      return List.of();
    }
  }

  public synchronized void add(Silence silence) throws IOException {
    List<Silence> all = new ArrayList<>(load());
    all.add(silence);
    DurableFiles.writeAtomically(file, all);
  }

  /** Ends a silence now; returns false when no silence has that id. */
  public synchronized boolean expire(String id, Instant now) throws IOException {
    List<Silence> all = new ArrayList<>();
    boolean found = false;
    for (Silence s : load()) {
      if (s.id().equals(id) && s.endsAt().isAfter(now)) {
        all.add(
            new Silence(
                s.id(), s.recipe(), s.rule(), s.startsAt(), now, s.comment(), s.createdBy()));
        found = true;
      } else {
        all.add(s);
      }
    }
    if (found) {
      DurableFiles.writeAtomically(file, all);
    }
    return found;
  }

  /** Drops silences that ended before {@code cutoff}, so the file does not grow forever. */
  public synchronized void prune(Instant cutoff) throws IOException {
    List<Silence> all = load();
    List<Silence> kept = all.stream().filter(s -> s.endsAt().isAfter(cutoff)).toList();
    if (kept.size() != all.size()) {
      DurableFiles.writeAtomically(file, kept);
    }
  }
}
