package dev.specwatch.signals;

import java.time.Duration;
import java.util.List;

/**
 * What one query covers: the series selected by {@code matchers}, summed {@code by} the labels that
 * tell recipes apart, over a range {@code window}.
 */
public record QueryScope(List<String> groupBy, List<LabelMatcher> matchers, Duration window) {
  public QueryScope {
    groupBy = List.copyOf(groupBy);
    matchers = List.copyOf(matchers);
    for (String label : groupBy) {
      if (!LabelMatcher.isValidLabelName(label)) {
        throw new IllegalArgumentException("invalid label name: " + label);
      }
    }
    if (window == null || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive");
    }
  }
}
