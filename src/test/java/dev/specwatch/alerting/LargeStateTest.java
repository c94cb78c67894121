package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.LargeState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert state of 10,000 recipes with learned change detection ({@link LargeState}): about 27 MB
 * of JSON. Saved and read back in a JVM with 96 MB of heap, less than the shipped 128 MB. Before
 * 2026-12-06 the file store made a byte array of the whole document (and Jackson's builder a copy),
 * and this JVM died of OutOfMemoryError, as the daemon did at 10,000 recipes (`make bench`).
 */
class LargeStateTest {
  static final int RECIPES = 10_000;
  static final Instant START = LargeState.START;

  @TempDir Path dir;

  @Test
  void tenThousandRecipesStateIsSavedAndReadBackWithinASmallHeap() throws Exception {
    LargeState.roundTripInChildJvm(96, 120, Child.class, dir.toString());
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
