package dev.specwatch.cli;

import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.alerting.Silences;
import dev.specwatch.ha.Database;
import dev.specwatch.ha.PgSilences;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;

/**
 * The silences of the config's state, for the {@code silence} commands: the state directory's file,
 * or the shared database of {@code state.backend: postgres} (every replica sees a silence added
 * here at its next evaluation).
 */
final class SilenceAccess implements AutoCloseable {
  private final Silences silences;
  private final Database db;

  private SilenceAccess(Silences silences, Database db) {
    this.silences = silences;
    this.db = db;
  }

  static SilenceAccess open(SpecwatchConfig c) throws IOException {
    if (c.database().isPresent()) {
      Database db = Database.open(c.database().get(), Database.defaultInstance() + "-cli");
      return new SilenceAccess(new PgSilences(db), db);
    }
    return new SilenceAccess(new SilenceStore(c.stateDir()), null);
  }

  Silences silences() {
    return silences;
  }

  @Override
  public void close() {
    if (db != null) {
      db.close();
    }
  }
}
