package dev.specwatch.ha;

import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Silences;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Silences in {@code sw_silence}: one added through any replica (or the CLI) holds on every replica
 * at its next evaluation. Each change is one statement, so concurrent writers never lose one.
 */
public final class PgSilences implements Silences {
  private final Database db;

  public PgSilences(Database db) {
    this.db = db;
  }

  @Override
  public List<Silence> load() throws IOException {
    return db.call(
        "reading silences",
        c -> {
          List<Silence> out = new ArrayList<>();
          try (PreparedStatement s =
                  c.prepareStatement("SELECT body FROM sw_silence ORDER BY ends_at, id");
              ResultSet r = s.executeQuery()) {
            while (r.next()) {
              out.add(DurableFiles.JSON.readValue(r.getString(1), Silence.class));
            }
          }
          return out;
        });
  }

  @Override
  public void add(Silence silence) throws IOException {
    db.call(
        "adding a silence",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement("INSERT INTO sw_silence (id, ends_at, body) VALUES (?, ?, ?)")) {
            s.setString(1, silence.id());
            s.setTimestamp(2, Timestamp.from(silence.endsAt()));
            s.setString(3, DurableFiles.JSON.writeValueAsString(silence));
            return s.executeUpdate();
          }
        });
  }

  @Override
  public boolean expire(String id, Instant now) throws IOException {
    return db.transaction(
        "expiring a silence",
        c -> {
          Silence found = null;
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT body FROM sw_silence WHERE id = ? AND ends_at > ? FOR UPDATE")) {
            s.setString(1, id);
            s.setTimestamp(2, Timestamp.from(now));
            try (ResultSet r = s.executeQuery()) {
              if (r.next()) {
                found = DurableFiles.JSON.readValue(r.getString(1), Silence.class);
              }
            }
          }
          if (found == null) {
            return false;
          }
          Silence ended =
              new Silence(
                  found.id(),
                  found.recipe(),
                  found.rule(),
                  found.startsAt(),
                  now,
                  found.comment(),
                  found.createdBy());
          try (PreparedStatement s =
              c.prepareStatement("UPDATE sw_silence SET ends_at = ?, body = ? WHERE id = ?")) {
            s.setTimestamp(1, Timestamp.from(now));
            s.setString(2, DurableFiles.JSON.writeValueAsString(ended));
            s.setString(3, id);
            s.executeUpdate();
          }
          return true;
        });
  }

  @Override
  public void prune(Instant cutoff) throws IOException {
    db.call(
        "pruning silences",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement("DELETE FROM sw_silence WHERE ends_at < ?")) {
            s.setTimestamp(1, Timestamp.from(cutoff));
            return s.executeUpdate();
          }
        });
  }

  @Override
  public String where() {
    return "database " + db.url();
  }
}
