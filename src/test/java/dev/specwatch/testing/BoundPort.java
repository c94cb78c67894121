package dev.specwatch.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The port a server process bound itself (it was told port 0), read from the line its log prints
 * once it listens. A port picked by the test and bound later by the server can be taken in between
 * by another process (two test JVMs run side by side), and a readiness check would then talk to the
 * wrong server; a port the server bound cannot.
 */
public final class BoundPort {
  /**
   * Prometheus' and Alertmanager's line (exporter-toolkit): {@code msg="Listening on" address=…}.
   */
  public static final Pattern EXPORTER_TOOLKIT =
      Pattern.compile("msg=\"Listening on\" address=(?:127\\.0\\.0\\.1|\\[::1\\]):(\\d+)");

  /** specwatch's start-up line: {@code status on http://127.0.0.1:PORT/ (port PORT)}. */
  public static final Pattern SPECWATCH = Pattern.compile("status on \\S+ \\(port (\\d+)\\)");

  private BoundPort() {}

  /**
   * Waits for {@code pattern} in {@code log} past byte {@code offset} (what an earlier run of the
   * same log wrote is skipped).
   *
   * @throws IllegalStateException with the log when the process exits or the line does not come
   */
  public static int fromLog(Process process, Path log, long offset, Pattern pattern, Duration max)
      throws IOException {
    Instant deadline = Instant.now().plus(max);
    while (Instant.now().isBefore(deadline)) {
      String text = read(log, offset);
      Matcher m = pattern.matcher(text);
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the process exited with " + process.exitValue() + " before listening:\n" + text);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + log, e);
      }
    }
    throw new IllegalStateException(
        "no '" + pattern + "' in " + log + " within " + max + ":\n" + read(log, offset));
  }

  /** The log's size now: the offset for a process about to append to it. */
  public static long end(Path log) throws IOException {
    return Files.exists(log) ? Files.size(log) : 0;
  }

  private static String read(Path log, long offset) throws IOException {
    if (!Files.exists(log)) {
      return "";
    }
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long length = f.length();
      if (length <= offset) {
        return "";
      }
      byte[] b = new byte[(int) (length - offset)];
      f.seek(offset);
      f.readFully(b);
      return new String(b, StandardCharsets.UTF_8);
    }
  }
}
