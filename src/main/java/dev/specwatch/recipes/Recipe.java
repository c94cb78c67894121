package dev.specwatch.recipes;

import java.nio.file.Path;
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
 */
public record Recipe(Path file, String stem, String modelName, Optional<Speculation> speculation) {

  /**
   * @param method {@code mtp}, {@code eagle}, {@code ngram}, a draft model's method, or {@code
   *     unspecified}
   * @param k num_speculative_tokens
   * @param shape how the recipe wrote it: {@code inline}, {@code placeholder} or {@code dotted}
   */
  public record Speculation(String method, int k, String shape) {}
}
