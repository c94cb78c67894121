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

  public boolean matches(String alertRecipe, String alertRule, Instant at) {
    return !at.isBefore(startsAt)
        && at.isBefore(endsAt)
        && Globs.matches(recipe, alertRecipe)
        && rule.map(r -> r.equals(alertRule)).orElse(true);
  }

  public boolean activeAt(Instant at) {
    return !at.isBefore(startsAt) && at.isBefore(endsAt);
  }
}
