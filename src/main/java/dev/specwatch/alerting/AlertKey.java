package dev.specwatch.alerting;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What makes an alert unique: a recipe's rule (and its draft position for per-position rules), or
 * one of specwatch's own alerts. Code asks the key ({@link #specwatch()}, {@link #recipe()}, {@link
 * #shard}) instead of parsing the id string; the string ({@link #id()}) is only the key's stored
 * form (state files, the outbox, Slack metadata), and {@link #parse} its exact inverse.
 *
 * <p>The id is {@code recipe/rule} or {@code recipe/rule[i]} for a recipe's alerts and {@code
 * specwatch/rule} for specwatch's own. It is unambiguous because a rule name is {@code [a-z0-9_]+}
 * (no slash) and a recipe may not be named {@code specwatch}, {@code specwatch/…} or {@code *}
 * (docs/CONFIG.md, {@code recipe}): a recipe name may itself contain slashes, so the recipe is
 * everything before the <em>last</em> one.
 *
 * @param recipe the recipe; {@link #SPECWATCH_RECIPE} for specwatch's own alerts
 * @param rule the rule's name ({@code acceptance_rate}, {@code change}, {@code
 *     datasource_unavailable}, …)
 * @param position the draft position of a per-position rule, else null
 */
public record AlertKey(String recipe, String rule, Integer position) {
  /** What specwatch's own alerts carry as their recipe (shown as "specwatch" where people read). */
  public static final String SPECWATCH_RECIPE = "*";

  private static final String SPECWATCH_PREFIX = "specwatch/";
  private static final Pattern RULE_NAME = Pattern.compile("[a-z0-9_]+");
  private static final Pattern RULE = Pattern.compile("([a-z0-9_]+)(?:\\[(\\d+)])?");

  public AlertKey {
    Objects.requireNonNull(recipe, "recipe");
    Objects.requireNonNull(rule, "rule");
    if (!RULE_NAME.matcher(rule).matches()) {
      throw new IllegalArgumentException("not a rule name: '" + rule + "'");
    }
  }

  /** A recipe's alert. */
  public static AlertKey of(String recipe, String rule, Integer position) {
    if (recipe.equals(SPECWATCH_RECIPE)) {
      throw new IllegalArgumentException("'*' names specwatch's own alerts, not a recipe");
    }
    return new AlertKey(recipe, rule, position);
  }

  /** One of specwatch's own alerts ({@code datasource_unavailable}, {@code state_recovered}, …). */
  public static AlertKey specwatch(String rule) {
    return new AlertKey(SPECWATCH_RECIPE, rule, null);
  }

  /** Whether this is one of specwatch's own alerts rather than a recipe's. */
  public boolean specwatch() {
    return recipe.equals(SPECWATCH_RECIPE);
  }

  /** The stored form: {@code recipe/rule}, {@code recipe/rule[i]} or {@code specwatch/rule}. */
  public String id() {
    return (specwatch() ? SPECWATCH_PREFIX : recipe + "/")
        + rule
        + (position == null ? "" : "[" + position + "]");
  }

  /**
   * The evaluation shard that owns this alert: its recipe's (a hash of the name, the same on every
   * replica), and shard 0 for specwatch's own alerts (which shard 0 alone raises).
   */
  public int shard(int shards) {
    return specwatch() ? 0 : shardOf(recipe, shards);
  }

  /** The evaluation shard of a recipe. */
  public static int shardOf(String recipe, int shards) {
    return Math.floorMod(recipe.hashCode(), shards);
  }

  /**
   * The key whose {@link #id()} is {@code id}.
   *
   * @throws IllegalArgumentException if {@code id} is not one (no slash, or no rule after it)
   */
  public static AlertKey parse(String id) {
    if (id.startsWith(SPECWATCH_PREFIX)) {
      return specwatch(id.substring(SPECWATCH_PREFIX.length()));
    }
    int slash = id.lastIndexOf('/');
    Matcher m = RULE.matcher(slash < 0 ? "" : id.substring(slash + 1));
    if (slash <= 0 || !m.matches()) {
      throw new IllegalArgumentException("not an alert id: '" + id + "'");
    }
    return of(
        id.substring(0, slash),
        m.group(1),
        m.group(2) == null ? null : Integer.valueOf(m.group(2)));
  }

  @Override
  public String toString() {
    return id();
  }
}
