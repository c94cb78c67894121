package dev.specwatch.notify;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JavaType;
import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.KeyedStore;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A small durable map (JSON file, atomic replace on every change). Thread-safe.
 *
 * <p>A damaged file is moved aside (its name reported to {@link StateHealth}) and the map starts
 * empty: the process starts instead of crash-looping. A failed save keeps the change in memory,
 * reports the state directory as not writable and is retried by {@link #flush()}; it never throws,
 * so a delivery that succeeded is not mistaken for one that failed (and sent again).
 */
public final class JsonMapStore<V> implements KeyedStore<V> {
  private final Path file;
  private final StateHealth health;
  private final TreeMap<String, V> values;
  private final boolean recovered;
  private boolean dirty;

  /**
   * @param lost what is lost when the file is damaged, for the operator
   */
  public JsonMapStore(Path file, Class<V> type, StateHealth health, Clock clock, String lost)
      throws IOException {
    this.file = file;
    this.health = health;
    JavaType mapType =
        DurableFiles.JSON.getTypeFactory().constructMapType(TreeMap.class, String.class, type);
    TreeMap<String, V> loaded;
    boolean damaged = false;
    try {
      loaded = DurableFiles.JSON.readValue(Files.readAllBytes(file), mapType);
      if (loaded == null) {
        throw new IllegalArgumentException("empty");
      }
    } catch (NoSuchFileException e) {
      loaded = new TreeMap<>();
    } catch (JacksonException | IllegalArgumentException e) {
      Path aside = DurableFiles.corruptSibling(file, clock.instant());
      Files.move(file, aside);
      health.recovered(
          new StateHealth.Recovery(file.toString(), aside.toString(), lost, clock.instant()));
      loaded = new TreeMap<>();
      damaged = true;
    }
    this.values = loaded;
    this.recovered = damaged;
  }

  /** Whether the file was damaged and this map started empty. */
  boolean recovered() {
    return recovered;
  }

  @Override
  public synchronized Optional<V> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  @Override
  public synchronized Map<String, V> all() {
    return Map.copyOf(values);
  }

  @Override
  public synchronized void put(String key, V value) {
    values.put(key, value);
    save();
  }

  @Override
  public synchronized void remove(String key) {
    if (values.remove(key) != null) {
      save();
    }
  }

  /** Writes changes a failed save left in memory; returns whether the file is up to date. */
  @Override
  public synchronized boolean flush() {
    if (dirty) {
      save();
    }
    return !dirty;
  }

  private void save() {
    try {
      DurableFiles.writeAtomically(file, values);
      dirty = false;
    } catch (IOException e) {
      dirty = true;
      health.failed(e);
    }
  }
}
