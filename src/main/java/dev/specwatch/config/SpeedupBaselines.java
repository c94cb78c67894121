package dev.specwatch.config;

import dev.specwatch.model.Location;
import dev.specwatch.model.Policy;
import dev.specwatch.yaml.MapReader;
import dev.specwatch.yaml.Problems;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The cross-policy check of {@code speedup_baseline} (docs/SPEEDUP.md). */
final class SpeedupBaselines {
  private SpeedupBaselines() {}

  /** {@code thresholds.speedup}: {@code below}, {@code clear_above}, {@code over} (at least 1h). */
  static Optional<Policy.Speedup> threshold(MapReader a) {
    java.time.Duration over = a.duration("over", Policy.Speedup.DEFAULT_OVER);
    if (over.compareTo(java.time.Duration.ofHours(1)) < 0) {
      a.error("over", "must be at least 1h: a speed-up needs hours of load behind it");
    }
    return ThresholdLines.floor(a, 0, 100).map(th -> new Policy.Speedup(th, over));
  }

  /**
   * A policy's {@code num_speculative_tokens}: required; 0 for a deployment without speculation,
   * which is watched for its throughput ({@code thresholds.throughput} its one rule) and serves as
   * a speed-up baseline; it takes none of the keys that judge speculation.
   */
  static int k(MapReader r) {
    int k = r.integer("num_speculative_tokens", -1, 0, 64);
    if (!r.has("num_speculative_tokens")) {
      r.error(
          "num_speculative_tokens",
          "is required (the k of --speculative-config; 0 for a deployment without speculation)");
    }
    if (k == 0) {
      r.map("thresholds")
          .ifPresent(
              t -> {
                for (String key : t.keys()) {
                  if (!key.equals("throughput")) {
                    t.keyError(
                        key,
                        "a deployment without speculation (num_speculative_tokens: 0) is watched"
                            + " for its throughput only: thresholds.throughput is its one rule"
                            + " (docs/SPEEDUP.md)");
                  }
                }
              });
      for (String key : List.of("slo", "detection", "speedup_baseline")) {
        if (r.has(key)) {
          r.error(
              key,
              "a deployment without speculation (num_speculative_tokens: 0) is a speed-up"
                  + " baseline for the recipes that name it (docs/SPEEDUP.md): it takes no "
                  + key);
        }
      }
    }
    return k;
  }

  /** Every {@code speedup_baseline} names another recipe of the same engine. */
  static void check(List<Policy> policies, Map<String, Location> keys, Problems problems) {
    Map<String, Policy> byRecipe = new HashMap<>();
    policies.forEach(p -> byRecipe.put(p.recipe(), p));
    for (Policy p : policies) {
      if (p.speedupBaseline().isEmpty()) {
        if (p.thresholds().speedup().isPresent()) {
          problems.add(
              p.source(),
              "thresholds.speedup",
              "needs speedup_baseline: the deployment the speed-up is measured against"
                  + " (docs/SPEEDUP.md)");
        }
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
