package dev.specwatch.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.detect.DropTest;
import dev.specwatch.detect.LocalReference;
import dev.specwatch.detect.NoiseModel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The alert state of many recipes with learned change detection, as it stands after twenty minutes
 * of 30 s steps: a learned model each, and each change rule with the 20 steps that wait 10 minutes
 * to enter its local reference (about 2.7 KB of JSON a recipe).
 */
public final class LargeState {
  public static final Instant START = Instant.parse("2026-12-01T00:00:00Z");

  private LargeState() {}

  /**
   * The normal the large-state tests and the benches give every recipe: a level of 0.6 learned from
   * 7 days at {@code learnedAt}.
   */
  public static NoiseModel model(Instant learnedAt) {
    return new NoiseModel(null, 0.6, 2, 1e-4, 4e-4, 900, Duration.ofDays(7), 2016, learnedAt);
  }

  public static AlertState of(int recipes) {
    NoiseModel model = model(START);
    Map<String, RecipeModel> models = new TreeMap<>();
    Map<String, DropTest.State> detectors = new TreeMap<>();
    for (int i = 0; i < recipes; i++) {
      String recipe = "recipe-" + i;
      models.put(recipe, new RecipeModel(model, "learned", START, Duration.ofSeconds(30)));
      LocalReference local = LocalReference.start(4);
      Instant at = START;
      for (int step = 0; step < 40; step++) {
        // evaluation times carry the clock's nanoseconds, as the daemon's do
        at = at.plusSeconds(30).plusNanos(123_456_789L * (step + i) % 1_000_000_000L);
        local = local.observe(at, 3600.0 + i + step, 4500.0, 0.8);
      }
      DropTest.State initial = DropTest.State.initial(4);
      detectors.put(
          recipe + "/change",
          new DropTest.State(
              initial.drop(),
              initial.recover(),
              false,
              null,
              null,
              0,
              0,
              0,
              at,
              null,
              local,
              null));
      detectors.put(recipe + "/acceptance_rate", DropTest.State.initial(3));
    }
    return new AlertState(AlertState.VERSION, Map.of(), null, 1, List.of(), models, detectors);
  }

  /**
   * Runs {@code main} (which saves such a state, reads it back and prints "read back equal") in a
   * child JVM with {@code heapMb} of heap and the serial collector, and checks that it did so
   * within {@code seconds} without running out of heap.
   */
  public static void roundTripInChildJvm(int heapMb, int seconds, Class<?> main, String arg)
      throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heapMb + "m",
                "-XX:+UseSerialGC",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName(),
                arg)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(seconds, TimeUnit.SECONDS)).isTrue();
    assertThat(out).contains("read back equal").doesNotContain("OutOfMemoryError");
    assertThat(p.exitValue()).as(out).isZero();
  }
}
