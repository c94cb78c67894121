package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.LargeState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert state of 10,000 recipes with learned change detection, as it stands after ten minutes
 * of 30 s steps (each change rule holds 20 steps waiting to enter its local reference): about 40 MB
 * of JSON. Saved and read back in a JVM with 96 MB of heap, less than the shipped 128 MB. Before
 * 2026-12-06 the file store made a byte array of the whole document (and Jackson's builder a copy),
 * and this JVM died of OutOfMemoryError, as the daemon did at 10,000 recipes (`make bench`).
 */
class LargeStateTest {
  static final int RECIPES = 10_000;
  static final int HEAP_MB = Integer.getInteger("largestate.heap", 96);
  static final Instant START = LargeState.START;

  @TempDir Path dir;

  @Test
  void tenThousandRecipesStateIsSavedAndReadBackWithinASmallHeap() throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + HEAP_MB + "m",
                "-XX:+UseSerialGC",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                System.getProperty("java.class.path"),
                Child.class.getName(),
                dir.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(out).contains("read back equal").doesNotContain("OutOfMemoryError");
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(Files.size(dir.resolve("alerts.json"))).isGreaterThan(20L << 20);
  }

  /** Builds the state, saves it with {@link FileStateStore}, reads it back and compares. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      AlertState state = LargeState.of(RECIPES);
      FileStateStore store =
          new FileStateStore(Path.of(args[0]), Clock.fixed(START, ZoneOffset.UTC));
      store.save(state);
      AlertState loaded = store.load();
      System.out.println(loaded.equals(state) ? "read back equal" : "read back different");
    }
  }
}
