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
}
