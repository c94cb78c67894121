package dev.specwatch.model;

/** Name patterns where {@code *} matches any run of characters and everything else is literal. */
public final class Globs {
  private Globs() {}

  public static boolean matches(String pattern, String value) {
    return value.matches(("\\Q" + pattern + "\\E").replace("*", "\\E.*\\Q"));
  }
}
