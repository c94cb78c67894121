package dev.specwatch.notify;

import com.fasterxml.jackson.databind.JavaType;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** A small durable map (JSON file, atomic replace on every change). Thread-safe. */
final class JsonMapStore<V> {
  private final Path file;
  private final TreeMap<String, V> values;

  JsonMapStore(Path file, Class<V> type) throws IOException {
    this.file = file;
    JavaType mapType =
        DurableFiles.JSON.getTypeFactory().constructMapType(TreeMap.class, String.class, type);
    TreeMap<String, V> loaded;
    try {
      loaded = DurableFiles.JSON.readValue(Files.readAllBytes(file), mapType);
    } catch (NoSuchFileException e) {
      loaded = new TreeMap<>();
    }
    this.values = loaded;
  }

  synchronized Optional<V> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  synchronized Map<String, V> all() {
    return Map.copyOf(values);
  }

  synchronized void put(String key, V value) {
    values.put(key, value);
    save();
  }

  synchronized void remove(String key) {
    if (values.remove(key) != null) {
      save();
    }
  }

  private void save() {
    try {
      DurableFiles.writeAtomically(file, values);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save " + file + ": " + e.getMessage(), e);
    }
  }
}
