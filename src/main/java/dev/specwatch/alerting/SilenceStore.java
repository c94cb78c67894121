package dev.specwatch.alerting;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Ad-hoc silences in {@code <state.dir>/silences.json}, shared by `specwatch silence` and the
 * daemon (which re-reads the file every evaluation). Writes are atomic.
 */
public final class SilenceStore implements Silences {
  /** One silence in the file: silences are flat objects. */
  private static final Pattern OBJECT = Pattern.compile("\\{[^{}]*\\}");

  private final Path file;
  private final StateHealth health;

  public SilenceStore(Path dir) {
    this(dir, new StateHealth(dir));
  }

  /**
   * @param health told when a damaged file is salvaged and set aside
   */
  public SilenceStore(Path dir, StateHealth health) {
    this.file = dir.resolve("silences.json");
    this.health = health;
  }

  public Path file() {
    return file;
  }

  @Override
  public String where() {
    return file.toString();
  }

  /**
   * The silences. A damaged file is salvaged silence by silence (every intact entry is kept), moved
   * aside, rewritten with what was salvaged and reported: a silenced alert must not page because
   * one byte of the file went bad.
   */
  @Override
  public synchronized List<Silence> load() throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    try {
      List<Silence> all = DurableFiles.JSON.readValue(bytes, new TypeReference<List<Silence>>() {});
      if (all == null || all.contains(null)) {
        throw new IllegalArgumentException("null entries");
      }
      return all;
    } catch (JacksonException | IllegalArgumentException e) {
      return salvage(new String(bytes, StandardCharsets.UTF_8));
    }
  }

  private List<Silence> salvage(String text) throws IOException {
    List<Silence> kept = new ArrayList<>();
    int damaged = 0;
    Matcher m = OBJECT.matcher(text);
    while (m.find()) {
      try {
        Silence s = DurableFiles.JSON.readValue(m.group(), Silence.class);
        if (s.id() == null || s.endsAt() == null || s.recipe() == null) {
          damaged++;
        } else {
          kept.add(s);
        }
      } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
        damaged++;
      }
    }
    Instant now = Instant.now();
    Path aside = DurableFiles.corruptSibling(file, now);
    Files.copy(file, aside);
    DurableFiles.writeAtomically(file, kept);
    health.recovered(
        new StateHealth.Recovery(
            file.toString(),
            aside.toString(),
            kept.size()
                + " silence(s) salvaged and kept"
                + (damaged > 0
                    ? "; " + damaged + " damaged entr" + (damaged == 1 ? "y" : "ies") + " lost"
                    : "")
                + " (check `specwatch silence list` and re-add what is missing)",
            now));
    return kept;
  }

  @Override
  public synchronized void add(Silence silence) throws IOException {
    List<Silence> all = new ArrayList<>(load());
    all.add(silence);
    DurableFiles.writeAtomically(file, all);
  }

  /** Ends a silence now; returns false when no silence has that id. */
  @Override
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
  @Override
  public synchronized void prune(Instant cutoff) throws IOException {
    List<Silence> all = load();
    List<Silence> kept = all.stream().filter(s -> s.endsAt().isAfter(cutoff)).toList();
    if (kept.size() != all.size()) {
      DurableFiles.writeAtomically(file, kept);
    }
  }
}
