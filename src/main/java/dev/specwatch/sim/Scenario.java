package dev.specwatch.sim;

import java.util.List;

/** What `specwatch simulate` serves: one entry per model. */
public record Scenario(String name, List<ModelScenario> models) {
  public Scenario {
    models = List.copyOf(models);
    if (models.isEmpty()) {
      throw new IllegalArgumentException("at least one model is required");
    }
  }
}
