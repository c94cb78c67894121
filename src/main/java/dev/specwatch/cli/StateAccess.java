package dev.specwatch.cli;

import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.alerting.Silences;
import dev.specwatch.digest.DigestService;
import dev.specwatch.ha.Database;
import dev.specwatch.ha.PgHistory;
import dev.specwatch.ha.PgKeyedStore;
import dev.specwatch.ha.PgSilences;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;
import java.time.Clock;

/**
 * The silences of the config's state, for the {@code silence} commands: the state directory's file,
 * or the shared database of {@code state.backend: postgres} (every replica sees a silence added
 * here at its next evaluation).
 */
final class StateAccess implements AutoCloseable {
  private final Silences silences;
  private final Database db;

  private StateAccess(Silences silences, Database db) {
    this.silences = silences;
    this.db = db;
  }

  static StateAccess open(SpecwatchConfig c) throws IOException {
    if (c.database().isPresent()) {
      Database db = Database.open(c.database().get(), Database.defaultInstance() + "-cli");
      return new StateAccess(new PgSilences(db), db);
    }
    return new StateAccess(new SilenceStore(c.stateDir()), null);
  }

  Silences silences() {
    return silences;
  }

  /** Makes {@code service} read transitions from, and record sent digests in, the database. */
  void digestStores(DigestService service) {
    if (db != null) {
      service.withStores(
          new PgHistory(db),
          new PgKeyedStore<>(db, "digest-sent", DigestService.SentRecord.class, Clock.systemUTC()));
    }
  }

  @Override
  public void close() {
    if (db != null) {
      db.close();
    }
  }
}
