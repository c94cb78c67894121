package dev.specwatch.digest;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.KeyedStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The periods whose digest was handled (sent, or skipped as too late), by destination key. A ledger
 * that cannot be read throws: the digest is then not sent (it may have been), never sent again on a
 * guess.
 */
public interface DigestLedger {
  /** Every handled period, by key. */
  Map<String, SentRecord> sent() throws IOException;

  /** Records one handled period. */
  void record(String key, SentRecord record) throws IOException;

  /** One handled period. */
  record SentRecord(java.time.Instant at, boolean sent) {}

  /**
   * A JSON file, read at every call: a {@code specwatch digest --send} of another process is seen
   * by the daemon's next run.
   */
  static DigestLedger file(Path file) {
    return new DigestLedger() {
      @Override
      public synchronized Map<String, SentRecord> sent() throws IOException {
        try {
          Map<String, SentRecord> read =
              DurableFiles.JSON.readValue(
                  Files.readAllBytes(file), new TypeReference<TreeMap<String, SentRecord>>() {});
          return read == null ? new TreeMap<>() : read;
        } catch (NoSuchFileException e) {
          return new TreeMap<>();
        } catch (IOException e) {
          throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
      }

      @Override
      public synchronized void record(String key, SentRecord record) throws IOException {
        Map<String, SentRecord> all = new TreeMap<>(sent());
        all.put(key, record);
        DurableFiles.writeAtomically(file, all);
      }
    };
  }

  /** Rows of a keyed store (the shared database). */
  static DigestLedger of(KeyedStore<SentRecord> store) {
    return new DigestLedger() {
      @Override
      public Map<String, SentRecord> sent() {
        return new TreeMap<>(store.all());
      }

      @Override
      public void record(String key, SentRecord record) throws IOException {
        store.put(key, record);
        if (!store.flush()) {
          throw new IOException("the digest ledger could not be written (kept in memory, retried)");
        }
      }
    };
  }
}
