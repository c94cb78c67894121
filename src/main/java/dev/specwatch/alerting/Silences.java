package dev.specwatch.alerting;

import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * Where silences are kept: {@code silences.json} of the state directory ({@link SilenceStore}) or
 * the shared database. Implementations are thread-safe.
 */
public interface Silences {
  /** Every silence, active or expired. */
  List<Silence> load() throws IOException;

  void add(Silence silence) throws IOException;

  /** Ends an active silence now; false when there is no such active silence. */
  boolean expire(String id, Instant now) throws IOException;

  /** Drops silences that ended before {@code cutoff}. */
  void prune(Instant cutoff) throws IOException;

  /** Where they are, for messages: a file or a database. */
  String where();
}
