package dev.specwatch.config;

import java.util.Optional;

/** Which recipe names a policy may have (docs/CONFIG.md, {@code recipe}). */
final class RecipeNames {
  private RecipeNames() {}

  /** The longest recipe name: it goes into alert ids, Slack messages and URLs. */
  static final int MAX = 200;

  /**
   * What is wrong with a recipe name (docs/CONFIG.md): printable text without control characters (a
   * newline would split log lines and alert ids), no leading or trailing space, at most {@link
   * #MAX} characters, and not {@code specwatch} or {@code specwatch/…}, which name specwatch's own
   * alerts.
   */
  static Optional<String> problem(String name) {
    if (name.isEmpty()) {
      return Optional.empty(); // reported as required
    }
    if (name.codePoints().anyMatch(c -> Character.isISOControl(c) || c == 0x2028 || c == 0x2029)) {
      return Optional.of(
          "contains a control character (a newline, a tab, …): not allowed in a name");
    }
    if (!name.equals(name.strip())) {
      return Optional.of("starts or ends with white space");
    }
    if (name.length() > MAX) {
      return Optional.of("is " + name.length() + " characters long; at most " + MAX);
    }
    if (name.equals("specwatch") || name.startsWith("specwatch/") || name.equals("*")) {
      return Optional.of("'" + name + "' is reserved for specwatch's own alerts");
    }
    return Optional.empty();
  }
}
