package dev.specwatch.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The speed-up tests' pair of recipes: {@code eagle} (the simulator's {@code it/eagle}, k = 3) and
 * its {@code speedup_baseline} {@code eagle-plain} (the same model without speculation), both
 * scraped as job {@code vllm}.
 */
public final class EaglePair {
  private EaglePair() {}

  /** Writes the two recipes into {@code dir}/alerts and returns that directory. */
  public static Path writeRecipes(Path dir) throws IOException {
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        alerts.resolve("eagle.yaml"),
        "recipe: eagle\nmatch: {job: vllm, model_name: it/eagle}\nnum_speculative_tokens: 3\n"
            + "min_drafts: 10\nspeedup_baseline: eagle-plain\n");
    Files.writeString(
        alerts.resolve("plain.yaml"),
        "recipe: eagle-plain\nmatch: {job: vllm, model_name: it/eagle-plain}\n"
            + "num_speculative_tokens: 0\n");
    return alerts;
  }
}
