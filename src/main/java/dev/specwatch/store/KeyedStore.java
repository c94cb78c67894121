package dev.specwatch.store;

import java.util.Map;
import java.util.Optional;

/**
 * A small durable map by key: a JSON file of the state directory, or rows of the shared database.
 * Writes never throw: a failed write keeps the change in memory, reports the store as unwritable
 * and is retried by {@link #flush()}, so a delivery that succeeded is not mistaken for one that
 * failed (and sent again). Thread-safe.
 */
public interface KeyedStore<V> {
  Optional<V> get(String key);

  Map<String, V> all();

  void put(String key, V value);

  void remove(String key);

  /** Writes changes a failed write left in memory; returns whether the store is up to date. */
  boolean flush();

  /** A store in memory only, gone with the process (one-shot commands, tests). */
  static <V> KeyedStore<V> memory() {
    java.util.concurrent.ConcurrentSkipListMap<String, V> values =
        new java.util.concurrent.ConcurrentSkipListMap<>();
    return new KeyedStore<>() {
      @Override
      public Optional<V> get(String key) {
        return Optional.ofNullable(values.get(key));
      }

      @Override
      public Map<String, V> all() {
        return Map.copyOf(values);
      }

      @Override
      public void put(String key, V value) {
        values.put(key, value);
      }

      @Override
      public void remove(String key) {
        values.remove(key);
      }

      @Override
      public boolean flush() {
        return true;
      }
    };
  }
}
