package dev.specwatch.signals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The result of evaluating every recipe once.
 *
 * @param queries how many PromQL queries the evaluation sent (independent of the recipe count)
 */
public record Evaluation(
    Instant evaluatedAt, Duration window, List<RecipeSnapshot> recipes, int queries) {
  public Evaluation {
    recipes = List.copyOf(recipes);
  }

  public boolean anyDatasourceError() {
    return recipes.stream().anyMatch(r -> r.state() == RecipeState.ERROR);
  }

  public boolean anyBreach() {
    return recipes.stream().anyMatch(r -> r.state() == RecipeState.BREACH);
  }
}
