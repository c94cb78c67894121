package dev.specwatch.ha;

import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.KeyedStore;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link KeyedStore} in rows of {@code sw_document} under one namespace, read through on every
 * call (another replica may have written it). A write that fails is kept in memory, reported as the
 * database being unreachable and written by {@link #flush()}; reads see it meanwhile.
 */
public final class PgKeyedStore<V> implements KeyedStore<V> {
  private static final Logger logger = LoggerFactory.getLogger(PgKeyedStore.class);

  private final Database db;
  private final String namespace;
  private final Class<V> type;
  private final Clock clock;

  /** Writes not yet in the database, by key; an empty Optional is a removal. */
  private final Map<String, Optional<V>> unwritten = new LinkedHashMap<>();

  public PgKeyedStore(Database db, String namespace, Class<V> type, Clock clock) {
    this.db = db;
    this.namespace = namespace;
    this.type = type;
    this.clock = clock;
  }

  @Override
  public synchronized Optional<V> get(String key) {
    if (unwritten.containsKey(key)) {
      return unwritten.get(key);
    }
    try {
      return db.call(
          "reading " + namespace,
          c -> {
            try (PreparedStatement s =
                c.prepareStatement(
                    "SELECT body FROM sw_document WHERE namespace = ? AND key = ?")) {
              s.setString(1, namespace);
              s.setString(2, key);
              try (ResultSet r = s.executeQuery()) {
                return r.next()
                    ? Optional.of(DurableFiles.JSON.readValue(r.getString(1), type))
                    : Optional.<V>empty();
              }
            }
          });
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public synchronized Map<String, V> all() {
    Map<String, V> out = new TreeMap<>();
    try {
      out.putAll(
          db.call(
              "reading " + namespace,
              c -> {
                Map<String, V> rows = new TreeMap<>();
                try (PreparedStatement s =
                    c.prepareStatement("SELECT key, body FROM sw_document WHERE namespace = ?")) {
                  s.setString(1, namespace);
                  try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                      rows.put(r.getString(1), DurableFiles.JSON.readValue(r.getString(2), type));
                    }
                  }
                }
                return rows;
              }));
    } catch (IOException e) {
      // Reported to the database's health by the call; the callers (the views) answer meanwhile.
      logger.debug(
          "{} unreadable, answering what this process wrote: {}", namespace, e.getMessage());
    }
    unwritten.forEach(
        (k, v) -> {
          if (v.isPresent()) {
            out.put(k, v.get());
          } else {
            out.remove(k);
          }
        });
    return Map.copyOf(out);
  }

  @Override
  public synchronized void put(String key, V value) {
    unwritten.put(key, Optional.of(value));
    flush();
  }

  @Override
  public synchronized void remove(String key) {
    unwritten.put(key, Optional.empty());
    flush();
  }

  @Override
  public synchronized boolean flush() {
    if (unwritten.isEmpty()) {
      return true;
    }
    try {
      db.transaction(
          "writing " + namespace,
          c -> {
            try (PreparedStatement put =
                    c.prepareStatement(
                        "INSERT INTO sw_document (namespace, key, body, updated_at)"
                            + " VALUES (?, ?, ?, ?) ON CONFLICT (namespace, key)"
                            + " DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at");
                PreparedStatement delete =
                    c.prepareStatement("DELETE FROM sw_document WHERE namespace = ? AND key = ?")) {
              for (Map.Entry<String, Optional<V>> e : unwritten.entrySet()) {
                if (e.getValue().isPresent()) {
                  put.setString(1, namespace);
                  put.setString(2, e.getKey());
                  put.setString(3, DurableFiles.JSON.writeValueAsString(e.getValue().get()));
                  put.setTimestamp(4, Timestamp.from(clock.instant()));
                  put.executeUpdate();
                } else {
                  delete.setString(1, namespace);
                  delete.setString(2, e.getKey());
                  delete.executeUpdate();
                }
              }
            }
            return null;
          });
      unwritten.clear();
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
