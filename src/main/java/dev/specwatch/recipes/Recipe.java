package dev.specwatch.recipes;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What specwatch needs from one spark-vllm-docker recipe: the name vLLM labels its metrics with and
 * the speculative configuration.
 *
 * @param file the recipe file
 * @param stem the file name without {@code .yaml}: the policy's recipe name
 * @param modelName vLLM's {@code model_name} label: the first {@code --served-model-name}, else the
 *     served model
 * @param speculation empty for a recipe without speculative decoding
 * @param warnings what would break the recipe upstream although specwatch can read it, each as
 *     {@code file:line:col: warning: key: message}
 */
public record Recipe(
    Path file,
    String stem,
    String modelName,
    Optional<Speculation> speculation,
    List<String> warnings) {
  public Recipe {
    warnings = List.copyOf(warnings);
  }

  public Recipe(Path file, String stem, String modelName, Optional<Speculation> speculation) {
    this(file, stem, modelName, speculation, List.of());
  }

  /**
   * @param method {@code mtp}, {@code eagle}, {@code ngram}, a draft model's method, or {@code
   *     unspecified}
   * @param k num_speculative_tokens
   * @param shape how the recipe wrote it: {@code inline}, {@code placeholder} or {@code dotted}
   */
  public record Speculation(String method, int k, String shape) {}
}
