package dev.specwatch.store;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the process knows about its state directory: whether it can be written right now (every
 * durable write reports here), and which damaged files were moved aside at start. The daemon turns
 * not-ready while writes fail, logs the problem once when it starts and once when it ends, and
 * serves both on {@code /readyz}, {@code /metrics} and {@code /api/v1/status}. Thread-safe.
 */
public final class StateHealth {
  private static final Logger logger = LoggerFactory.getLogger(StateHealth.class);

  /** A damaged file moved aside, and what specwatch lost or salvaged with it. */
  public record Recovery(String file, String movedTo, String lost, Instant at) {}

  /** Tries a write to the store (or a query); throws what made it fail. */
  public interface Probe {
    void run() throws IOException;
  }

  /** What the directory probe writes: more than a state file's usual write, a few disk blocks. */
  static final int PROBE_BYTES = 64 * 1024;

  private final String location;
  private final String what;
  private final String back;
  private final Probe probe;
  private final AtomicLong failures = new AtomicLong();
  private final List<Recovery> recoveries = new ArrayList<>();
  private volatile String problem;
  private volatile java.util.function.Supplier<Optional<String>> stall = Optional::empty;
  private volatile long failedAtNanos = System.nanoTime();

  public StateHealth(Path dir) {
    Path abs = dir.toAbsolutePath();
    this.location = abs.toString();
    this.what = "state dir " + abs + " is not writable";
    this.back = "state dir " + abs + " is writable again";
    this.probe =
        () -> {
          Files.createDirectories(abs);
          Path probe = Files.createTempFile(abs, ".probe", ".tmp");
          try (java.nio.channels.FileChannel out =
              java.nio.channels.FileChannel.open(probe, java.nio.file.StandardOpenOption.WRITE)) {
            // Data, forced to disk: an empty file needs only an inode, so on a full disk it is
            // created while every real write fails, and the health flapped every second
            // ("writable again", then not writable, 31 times in 30 s).
            java.nio.ByteBuffer block = java.nio.ByteBuffer.allocate(PROBE_BYTES);
            while (block.hasRemaining()) {
              out.write(block);
            }
            out.force(true);
          } finally {
            Files.deleteIfExists(probe);
          }
        };
  }

  /**
   * The health of a store that is not a directory: the shared database.
   *
   * @param location what to name (a URL without credentials)
   * @param what the problem's first words, e.g. "database … is unreachable"
   * @param back said when it is over, e.g. "database … is reachable again"
   */
  public StateHealth(String location, String what, String back, Probe probe) {
    this.location = location;
    this.what = what;
    this.back = back;
    this.probe = probe;
  }

  /** The state directory, or the database's URL. */
  public String location() {
    return location;
  }

  /** A write to the state directory failed: logged once until writes succeed again. */
  public void failed(IOException e) {
    failures.incrementAndGet();
    failedAtNanos = System.nanoTime();
    String now = what + ": " + reason(e);
    String before = problem;
    problem = now;
    if (before == null) {
      logger.error(
          "{}; evaluation and notifications are paused until it is usable (nothing is sent that"
              + " cannot be recorded)",
          now);
    }
  }

  /** A write to the state directory succeeded. */
  public void ok() {
    clear();
  }

  /**
   * An operation that began at {@code startedNanos} ({@link System#nanoTime}) succeeded. It shows
   * the store is back only if it began after the last failure: while a database shuts down, an
   * operation already under way on a connection not yet cut can still succeed after another one
   * failed, and must not announce a recovery (and a second outage) in between.
   */
  public void ok(long startedNanos) {
    if (startedNanos - failedAtNanos > 0) {
      clear();
    }
  }

  private void clear() {
    if (problem != null) {
      problem = null;
      logger.info("{}; resuming", back);
    }
  }

  /**
   * Tries a write (a temp file, created and deleted) and reports it; returns whether the directory
   * is writable.
   */
  public boolean probe() {
    try {
      probe.run();
      ok();
      return true;
    } catch (IOException e) {
      failed(e);
      return false;
    }
  }

  /** Why the state directory cannot be written (or the database used); empty while it can. */
  public Optional<String> problem() {
    return Optional.ofNullable(problem);
  }

  /**
   * What makes the process not ready: a {@link #problem()}, or a store that has not failed but
   * stalls (a statement in flight for too long: a lock, a server that accepts and never answers).
   * Read from memory: never waits on the store.
   */
  public Optional<String> readiness() {
    String failed = problem;
    return failed != null ? Optional.of(failed) : stall.get();
  }

  /** What says the store is stalled although no operation has failed yet (the database). */
  public void stalledWhen(java.util.function.Supplier<Optional<String>> probe) {
    this.stall = probe;
  }

  /** Failed writes since start. */
  public long failures() {
    return failures.get();
  }

  public synchronized void recovered(Recovery recovery) {
    recoveries.add(recovery);
    logger.error(
        "state file {} was damaged; moved it to {}; {}",
        recovery.file(),
        recovery.movedTo(),
        recovery.lost());
  }

  public synchronized List<Recovery> recoveries() {
    return List.copyOf(recoveries);
  }

  /** "permission denied", "read-only file system", "no space left on device", ... */
  public static String reason(IOException e) {
    if (e instanceof StateWriteException w) {
      return w.reason();
    }
    if (e instanceof DatabaseException d) {
      return d.reason();
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NoSuchFileException) {
      return "it does not exist";
    }
    String text =
        e instanceof FileSystemException fs && fs.getReason() != null
            ? fs.getReason()
            : String.valueOf(e.getMessage());
    String lower = text.toLowerCase(Locale.ROOT);
    if (lower.contains("read-only file system")) {
      return "read-only file system";
    }
    if (lower.contains("no space left")) {
      return "no space left on device";
    }
    if (lower.contains("disk quota")) {
      return "disk quota exceeded";
    }
    return e.getClass().getSimpleName() + (text.equals("null") ? "" : ": " + text);
  }
}
