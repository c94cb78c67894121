package dev.specwatch.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import okio.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash-safe JSON files for everything specwatch keeps in its state directory: write a temp file,
 * fsync it, rename it over the target, fsync the directory. After a crash the old or the new
 * content is read, never a torn file.
 */
public final class DurableFiles {
  private static final Logger logger = LoggerFactory.getLogger(DurableFiles.class);

  /**
   * snake_case, ISO-8601 times and durations, unknown properties ignored. Instants are written by
   * {@link IsoInstantSerializer}: the same text as jsr310's, a third of the state's save cheaper.
   */
  public static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .registerModule(
              new SimpleModule("specwatch-instants")
                  .addSerializer(Instant.class, new IsoInstantSerializer()))
          .registerModule(new Jdk8Module())
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /**
   * {@link #JSON} without indentation, for the alert state and the last evaluation: rewritten every
   * evaluation, and at 10,000 recipes indentation was 36 % of the state's bytes (44 MB) and about a
   * quarter of its save's CPU (docs/PERFORMANCE.md, 2026-12-06). Read by {@link #JSON} as before.
   */
  public static final ObjectWriter COMPACT =
      JSON.writer().without(SerializationFeature.INDENT_OUTPUT);

  private static final int WRITE_BUFFER_BYTES = 64 * 1024;

  /**
   * {@code value} as compact UTF-8 JSON in okio's 8 KB segments: as large as the document, never
   * twice (no array to grow and copy), and released segment by segment as its {@link
   * Buffer#inputStream()} is read.
   */
  public static Buffer utf8(Object value) throws IOException {
    Buffer out = new Buffer();
    COMPACT.writeValue(out.outputStream(), value);
    return out;
  }

  private DurableFiles() {}

  /**
   * Reads a file written by {@link #writeAtomically} as it streams, never holding its bytes whole.
   */
  public static <T> T read(Path file, Class<T> type) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return JSON.readValue(in, type);
    }
  }

  /**
   * Replaces {@code target} with {@code value} as JSON, crash-safely.
   *
   * @throws StateWriteException naming the target and the reason ("permission denied")
   */
  public static void writeAtomically(Path target, Object value) throws IOException {
    writeAtomically(target, value, JSON.writer());
  }

  /**
   * As {@link #writeAtomically(Path, Object)}, with {@code writer} ({@link #COMPACT} for the large
   * documents rewritten every evaluation).
   */
  public static void writeAtomically(Path target, Object value, ObjectWriter writer)
      throws IOException {
    try {
      write(target, value, writer);
    } catch (StateWriteException e) {
      throw e;
    } catch (IOException e) {
      throw new StateWriteException(target, e);
    }
  }

  private static void write(Path target, Object value, ObjectWriter writer) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path temp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
    try {
      // Streamed to the file, never held whole: the alert state of 10,000 recipes with change
      // detection is tens of megabytes of JSON, and a byte array of it (with the builder's copy)
      // did not fit beside the evaluation in the shipped 128 MB heap (docs/PERFORMANCE.md,
      // 2026-12-06).
      try (FileChannel channel =
          FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        OutputStream out =
            new BufferedOutputStream(Channels.newOutputStream(channel), WRITE_BUFFER_BYTES);
        try (JsonGenerator json =
            writer.createGenerator(out).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)) {
          writer.writeValue(json, value);
        }
        out.flush();
        channel.force(true);
      }
      try {
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      fsyncDirectory(dir);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private static final java.time.format.DateTimeFormatter STAMP =
      java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
          .withZone(java.time.ZoneOffset.UTC);

  /** Where a damaged {@code file} is set aside: {@code <file>.corrupt-20261201T100000Z}. */
  public static Path corruptSibling(Path file, java.time.Instant at) {
    return file.resolveSibling(file.getFileName() + ".corrupt-" + STAMP.format(at));
  }

  /** Makes renames and deletions in {@code dir} durable (best effort where unsupported). */
  public static void fsyncDirectory(Path dir) {
    // Makes the rename durable on Linux; not supported (and not needed) on some platforms.
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      logger.debug("directory {} not synced (unsupported here): {}", dir, e.toString());
    }
  }
}
