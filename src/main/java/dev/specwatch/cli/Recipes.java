package dev.specwatch.cli;

import dev.specwatch.model.Globs;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.yaml.MapReader;
import java.util.Set;
import java.util.TreeSet;

/** Recipe names given on the command line, checked against the config with a did-you-mean. */
final class Recipes {
  private Recipes() {}

  /** The recipe's policy; a usage error naming the closest recipe when there is none. */
  static Policy find(SpecwatchConfig c, String name) {
    if (c.baselines().stream().anyMatch(p -> p.recipe().equals(name))) {
      throw new UsageException(
          "recipe '"
              + name
              + "' runs without speculation (num_speculative_tokens: 0): it is a speed-up"
              + " baseline, named by `speedup_baseline` or `advise --baseline`");
    }
    return c.policies().stream()
        .filter(p -> p.recipe().equals(name))
        .findFirst()
        .orElseThrow(() -> unknown("no recipe '" + name + "'", name, names(c)));
  }

  /** A recipe of any kind, speculative or a baseline (k = 0), for {@code --baseline}. */
  static Policy findAny(SpecwatchConfig c, String name) {
    Set<String> all = new TreeSet<>();
    c.recipes().forEach(p -> all.add(p.recipe()));
    return c.recipe(name).orElseThrow(() -> unknown("no recipe '" + name + "'", name, all));
  }

  /** Checks a recipe name or glob: it must match at least one recipe, unless forced. */
  static void checkPattern(SpecwatchConfig c, String pattern) {
    Set<String> names = names(c);
    if (names.stream().noneMatch(n -> Globs.matches(pattern, n))) {
      throw unknown(
          "'" + pattern + "' matches no recipe (use --force to silence it anyway)", pattern, names);
    }
  }

  /** Checks a rule name against the rules a policy can have. */
  static void checkRule(String rule) {
    if (!Policy.RULE_NAMES.contains(rule)) {
      throw unknown("unknown rule '" + rule + "'", rule, new TreeSet<>(Policy.RULE_NAMES));
    }
  }

  private static Set<String> names(SpecwatchConfig c) {
    Set<String> names = new TreeSet<>();
    c.policies().forEach(p -> names.add(p.recipe()));
    return names;
  }

  private static UsageException unknown(String what, String given, Set<String> candidates) {
    String hint =
        MapReader.closest(given, candidates).map(h -> " (did you mean '" + h + "'?)").orElse("");
    return new UsageException(
        what + hint + (candidates.isEmpty() ? "" : "; known: " + String.join(", ", candidates)));
  }
}
