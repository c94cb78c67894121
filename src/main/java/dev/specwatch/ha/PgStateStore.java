package dev.specwatch.ha;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.StateStore;
import dev.specwatch.store.ConflictException;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import okio.Buffer;

/**
 * The alert state of one evaluation shard, one row of {@code sw_alert_state}. A save is a
 * compare-and-set on the version read last: a replica that lost the shard to another (it missed its
 * check-ins while still evaluating) is refused with {@link ConflictException} instead of
 * overwriting the newer state, so its transitions are neither recorded nor sent.
 */
public final class PgStateStore implements StateStore {
  private final Database db;
  private final int shard;
  private final Clock clock;
  private long version = -1;

  public PgStateStore(Database db, int shard, Clock clock) {
    this.db = db;
    this.shard = shard;
    this.clock = clock;
  }

  @Override
  public Optional<AlertState> savedElsewhere() throws IOException {
    return Optional.of(load());
  }

  @Override
  public synchronized AlertState load() throws IOException {
    return db.call(
        "reading the alert state",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement("SELECT version, state FROM sw_alert_state WHERE shard = ?")) {
            s.setInt(1, shard);
            try (ResultSet r = s.executeQuery()) {
              if (!r.next()) {
                version = 0;
                return AlertState.emptyAt(clock.instant());
              }
              version = r.getLong(1);
              // The text's bytes as the driver received them (UTF-8, the client encoding
              // PgJDBC always uses), without a Java string of them (twice their size).
              return DurableFiles.JSON.readValue(r.getBytes(2), AlertState.class);
            }
          }
        });
  }

  @Override
  public synchronized void save(AlertState state) throws IOException {
    // UTF-8 bytes in okio's segments, streamed to PostgreSQL as they are and turned into text
    // there (convert_from), each segment let go as it is sent: a Java string of the state (and
    // the writer's chars before it) took three times its size, and a shard of 10,000 recipes with
    // learned change detection did not fit in the shipped 128 MB heap (docs/PERFORMANCE.md,
    // 2026-12-06).
    Buffer json = DurableFiles.utf8(state);
    long expected = version;
    int updated =
        db.call(
            "saving the alert state",
            c -> {
              String sql =
                  expected <= 0
                      ? "INSERT INTO sw_alert_state (version, state, updated_at, updated_by, shard)"
                          + " VALUES (1, convert_from(?, 'UTF8'), ?, ?, ?)"
                          + " ON CONFLICT (shard) DO NOTHING"
                      : "UPDATE sw_alert_state SET version = version + 1,"
                          + " state = convert_from(?, 'UTF8'),"
                          + " updated_at = ?, updated_by = ? WHERE shard = ? AND version = ?";
              try (PreparedStatement s = c.prepareStatement(sql)) {
                s.setBinaryStream(1, json.inputStream(), json.size());
                s.setTimestamp(2, Timestamp.from(clock.instant()));
                s.setString(3, db.instance());
                s.setInt(4, shard);
                if (expected > 0) {
                  s.setLong(5, expected);
                }
                return s.executeUpdate();
              }
            });
    if (updated == 0) {
      throw new ConflictException(
          "evaluation shard " + shard + " was saved by another replica since this one read it");
    }
    version = Math.max(expected, 0) + 1;
  }

  /** Shards at or beyond {@code first} that have a saved state, in order. */
  static List<Integer> shardsFrom(Database db, int first) throws IOException {
    return db.call(
        "reading the alert state",
        c -> {
          List<Integer> out = new ArrayList<>();
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT shard FROM sw_alert_state WHERE shard >= ? ORDER BY shard")) {
            s.setInt(1, first);
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                out.add(r.getInt(1));
              }
            }
          }
          return out;
        });
  }

  /** Every shard's saved state (what the API serves), in shard order. */
  public static List<AlertState> all(Database db) throws IOException {
    return db.call(
        "reading the alert state",
        c -> {
          List<AlertState> out = new ArrayList<>();
          try (PreparedStatement s =
                  c.prepareStatement("SELECT state FROM sw_alert_state ORDER BY shard");
              ResultSet r = s.executeQuery()) {
            while (r.next()) {
              out.add(DurableFiles.JSON.readValue(r.getBytes(1), AlertState.class));
            }
          }
          return out;
        });
  }
}
