package dev.specwatch.signals;

import dev.specwatch.model.Durations;
import dev.specwatch.model.LabelMatcher;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/** Small, safe pieces of PromQL text. */
public final class PromQl {
  private PromQl() {}

  /**
   * {@code unless on (G) count by (G) (count_over_time(metric{S}[W]))}: drops the groups of {@code
   * scope} whose servers export {@code metric} at all in the window, however idle. The fallback
   * forms of older releases use it so that a recipe is read one way only.
   */
  static String unlessExported(QueryScope scope, String metric) {
    String by = labelList(scope.groupBy());
    return "\n  unless on ("
        + by
        + ")\ncount by ("
        + by
        + ") (count_over_time("
        + metric
        + selector(scope.matchers())
        + scope.rangeSelector()
        + "))";
  }

  /**
   * {@code (primary or (fallback unless on (G) <groups exporting metric>))}: an older or reduced
   * release shape's form only for the groups whose servers do not export {@code metric}, so a
   * recipe is read one way only; parenthesised so that callers may compare or combine it as one
   * term.
   */
  static String orWhereNotExported(
      QueryScope scope, String primary, String fallback, String metric) {
    return "(" + primary + "\n  or\n(" + fallback + unlessExported(scope, metric) + "))";
  }

  /**
   * A PromQL double-quoted string literal. Backslash, double quote and control characters are
   * escaped; other UTF-8 passes through unchanged (PromQL strings are UTF-8, Go-style escapes).
   */
  public static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** {@code name op "value"} with the value escaped as a PromQL double-quoted string. */
  public static String matcher(LabelMatcher m) {
    return m.name() + m.op().symbol() + quote(m.value());
  }

  /** {@code {a="x",b=~"y"}}, or "" when there are no matchers. */
  public static String selector(List<LabelMatcher> matchers) {
    if (matchers.isEmpty()) {
      return "";
    }
    return matchers.stream().map(PromQl::matcher).collect(Collectors.joining(",", "{", "}"));
  }

  /** {@code a, b} for {@code by (...)} and {@code on (...)} clauses. */
  public static String labelList(List<String> labels) {
    return String.join(", ", labels);
  }

  /**
   * {@code op by (by) (function(metric{S}[W]))}: one series per group of a range function over the
   * scope's selector and window, e.g. {@code max by (job) (max_over_time(g{job="x"}[5m]))}.
   */
  static String aggregate(
      String op, List<String> by, String function, String metric, QueryScope scope) {
    return op
        + " by ("
        + labelList(by)
        + ") ("
        + function
        + "("
        + metric
        + selector(scope.matchers())
        + scope.rangeSelector()
        + "))";
  }

  /** A range duration, e.g. {@code 5m}. */
  public static String range(Duration window) {
    return Durations.format(window);
  }
}
