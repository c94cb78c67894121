package dev.specwatch.recipes;

import dev.specwatch.model.Policy;
import dev.specwatch.yaml.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * Imported policies whose recipe file changed since the import: {@code validate} warns, so a k or
 * model name edited in the recipe does not silently leave the policy watching the old one.
 */
public final class Drift {
  private Drift() {}

  /** One line per drifted policy, naming the policy, the recipe and what differs. */
  public static List<String> check(List<Policy> policies) {
    List<String> out = new ArrayList<>();
    for (Policy p : policies) {
      if (p.importedFrom().isEmpty()) {
        continue;
      }
      Policy.ImportedFrom from = p.importedFrom().get();
      String where =
          p.source().file() + ": recipe " + p.recipe() + " (from " + from.written() + ")";
      if (!Files.isRegularFile(from.recipe())) {
        out.add(where + ": the recipe file no longer exists");
        continue;
      }
      Recipe r;
      try {
        r = RecipeReader.read(from.recipe());
      } catch (InvalidInputException e) {
        out.add(where + ": the recipe is broken: " + e.problems().get(0));
        continue;
      } catch (IOException e) {
        out.add(where + ": cannot read the recipe: " + e.getMessage());
        continue;
      }
      if (r.speculation().isEmpty()) {
        out.add(where + ": the recipe no longer uses speculative decoding");
        continue;
      }
      List<String> diffs = new ArrayList<>();
      int k = r.speculation().get().k();
      if (k != p.numSpeculativeTokens()) {
        diffs.add(
            "num_speculative_tokens is " + p.numSpeculativeTokens() + ", the recipe has " + k);
      }
      String model = p.match().get("model_name");
      if (model != null && !model.equals(r.modelName())) {
        diffs.add("model_name is " + model + ", the recipe serves " + r.modelName());
      }
      if (!diffs.isEmpty()) {
        out.add(
            where
                + ": "
                + String.join("; ", diffs)
                + " (re-run `specwatch policies import` to take the recipe's values)");
      }
    }
    return out;
  }
}
