package dev.specwatch.signals;

/**
 * A threshold the recipe is below.
 *
 * @param rule acceptance_rate, mean_accepted_length or position_acceptance
 * @param position the draft position for position_acceptance, else null
 */
public record Breach(String rule, Integer position, double value, double threshold) {
  /** Stable within a recipe: {@code acceptance_rate}, {@code position_acceptance[0]}. */
  public String id() {
    return position == null ? rule : rule + "[" + position + "]";
  }
}
