package dev.specwatch.model;

/**
 * Name patterns where {@code *} matches any run of characters and everything else is literal.
 *
 * <p>Matched directly, not through a regular expression: a pattern used to be quoted with {@code
 * \Q…\E}, so one holding {@code \E} escaped the quoting and could inject any regex, including one
 * that backtracks for minutes on a 60-character name. The greedy match with one backtrack point
 * (the last {@code *}) takes at most pattern × value steps.
 */
public final class Globs {
  private Globs() {}

  public static boolean matches(String pattern, String value) {
    int p = 0;
    int v = 0;
    int star = -1;
    int resume = 0;
    while (v < value.length()) {
      if (p < pattern.length() && pattern.charAt(p) == '*') {
        star = p++;
        resume = v;
      } else if (p < pattern.length() && pattern.charAt(p) == value.charAt(v)) {
        p++;
        v++;
      } else if (star >= 0) {
        p = star + 1;
        v = ++resume;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
  }
}
