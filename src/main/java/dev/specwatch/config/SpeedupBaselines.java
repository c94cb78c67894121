package dev.specwatch.config;

import dev.specwatch.model.Location;
import dev.specwatch.model.Policy;
import dev.specwatch.yaml.Problems;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The cross-policy check of {@code speedup_baseline} (docs/SPEEDUP.md). */
final class SpeedupBaselines {
  private SpeedupBaselines() {}

  /** Every {@code speedup_baseline} names another recipe of the same engine. */
  static void check(List<Policy> policies, Map<String, Location> keys, Problems problems) {
    Map<String, Policy> byRecipe = new HashMap<>();
    policies.forEach(p -> byRecipe.put(p.recipe(), p));
    for (Policy p : policies) {
      if (p.speedupBaseline().isEmpty()) {
        continue;
      }
      String name = p.speedupBaseline().get();
      Policy baseline = byRecipe.get(name);
      if (name.equals(p.recipe())) {
        problems.add(
            keys.getOrDefault(p.recipe(), p.source()),
            "speedup_baseline",
            "names the recipe itself; name a deployment of the same model without speculation"
                + " (num_speculative_tokens: 0) or with another k, or use `specwatch advise"
                + " --baseline-from/--baseline-to` for its own history before a change");
      } else if (baseline == null) {
        problems.add(
            keys.getOrDefault(p.recipe(), p.source()),
            "speedup_baseline",
            "no recipe '"
                + name
                + "' among the policies (recipes: "
                + String.join(", ", new java.util.TreeSet<>(byRecipe.keySet()))
                + ")");
      } else if (baseline.engine() != p.engine()) {
        problems.add(
            keys.getOrDefault(p.recipe(), p.source()),
            "speedup_baseline",
            "recipe '"
                + name
                + "' runs on "
                + baseline.engine().key()
                + ", this one on "
                + p.engine().key()
                + ": a speed-up is measured between deployments of one engine");
      }
    }
  }
}
