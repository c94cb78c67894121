package dev.specwatch.signals;

import dev.specwatch.model.Threshold;

/**
 * A threshold the recipe is past: below a floor, or above a ceiling.
 *
 * @param rule acceptance_rate, mean_accepted_length, position_acceptance, speedup, or a ceiling's
 *     acceptance_rate_above / mean_accepted_length_above
 * @param position the draft position for position_acceptance, else null
 * @param direction which side of {@code threshold} is wrong
 */
public record Breach(
    String rule, Integer position, double value, double threshold, Threshold.Direction direction) {
  /** Stable within a recipe: {@code acceptance_rate}, {@code position_acceptance[0]}. */
  public String id() {
    return position == null ? rule : rule + "[" + position + "]";
  }
}
