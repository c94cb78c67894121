package dev.specwatch.ha;

import dev.specwatch.alerting.History;
import dev.specwatch.alerting.Transition;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;

/**
 * The transition history in {@code sw_transition}, indexed by time (the digest and {@code
 * /api/v1/history} read a range, not the whole history). A transition appended twice (the same
 * alert id and sequence: a cycle replayed after a replica died) is stored once.
 */
public final class PgHistory implements History {
  private final Database db;

  public PgHistory(Database db) {
    this.db = db;
  }

  @Override
  public void append(List<Transition> transitions) throws IOException {
    if (transitions.isEmpty()) {
      return;
    }
    db.call(
        "appending to the transition history",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "INSERT INTO sw_transition (at, alert_id, sequence, kind, body)"
                      + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (alert_id, sequence) DO NOTHING")) {
            for (Transition t : transitions) {
              s.setTimestamp(1, Timestamp.from(t.at()));
              s.setString(2, t.alertId());
              s.setLong(3, t.sequence());
              s.setString(4, t.kind().name());
              s.setString(5, DurableFiles.JSON.writeValueAsString(t));
              s.addBatch();
            }
            s.executeBatch();
          }
          return null;
        });
  }

  @Override
  public List<Transition> between(java.time.Instant from, java.time.Instant to) throws IOException {
    return db.call(
        "reading the transition history",
        c -> {
          List<Transition> out = new ArrayList<>();
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT body FROM sw_transition WHERE at >= ? AND at < ? ORDER BY at, id")) {
            s.setTimestamp(1, Timestamp.from(Pg.clamp(from)));
            s.setTimestamp(2, Timestamp.from(Pg.clamp(to)));
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                out.add(DurableFiles.JSON.readValue(r.getString(1), Transition.class));
              }
            }
          }
          return out;
        });
  }
}
