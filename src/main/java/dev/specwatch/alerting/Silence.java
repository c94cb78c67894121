package dev.specwatch.alerting;

import dev.specwatch.model.Globs;
import java.time.Instant;
import java.util.Optional;

/**
 * Suppresses notifications (not evaluation) for matching alerts between {@code startsAt} and {@code
 * endsAt}.
 *
 * @param recipe a recipe name, or a glob with {@code *} (e.g. {@code qwen*}, {@code *})
 * @param rule a rule (acceptance_rate, regression, ...) or empty for every rule
 */
public record Silence(
    String id,
    String recipe,
    Optional<String> rule,
    Instant startsAt,
    Instant endsAt,
    String comment,
    String createdBy) {

  /**
   * Whether a silence on {@code recipeGlob} would mute the whole fleet: {@code *}, or a glob that
   * matches every one of two or more recipes. Such a silence needs an explicit confirmation.
   */
  public static boolean silencesEverything(String recipeGlob, java.util.List<String> recipes) {
    return recipeGlob.strip().chars().allMatch(c -> c == '*')
        || (recipes.size() >= 2 && recipes.stream().allMatch(r -> Globs.matches(recipeGlob, r)));
  }

  public boolean matches(String alertRecipe, String alertRule, Instant at) {
    return !at.isBefore(startsAt)
        && at.isBefore(endsAt)
        && Globs.matches(recipe, alertRecipe)
        && rule.map(r -> r.equals(alertRule)).orElse(true);
  }

  /**
   * The silence as `silence list --output json` and {@code /api/v1/silences} show it: id, recipe,
   * rule (null: every rule), starts_at, ends_at, comment, created_by, active.
   */
  public java.util.Map<String, Object> json(Instant now) {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("id", id);
    m.put("recipe", recipe);
    m.put("rule", rule.orElse(null));
    m.put("starts_at", startsAt.toString());
    m.put("ends_at", endsAt.toString());
    m.put("comment", comment);
    m.put("created_by", createdBy);
    m.put("active", activeAt(now));
    return m;
  }

  public boolean activeAt(Instant at) {
    return !at.isBefore(startsAt) && at.isBefore(endsAt);
  }
}
