package dev.specwatch.signals;

import dev.specwatch.model.LabelMatcher;
import java.time.Duration;
import java.util.List;

/**
 * What one query covers: the series selected by {@code matchers}, summed {@code by} the labels that
 * tell recipes apart, over a range {@code window} that ends {@code offset} before the evaluation
 * time.
 */
public record QueryScope(
    List<String> groupBy, List<LabelMatcher> matchers, Duration window, Duration offset) {
  public QueryScope(List<String> groupBy, List<LabelMatcher> matchers, Duration window) {
    this(groupBy, matchers, window, Duration.ZERO);
  }

  /** The same series over {@code baseline}, ending where this window starts. */
  public QueryScope baseline(Duration baseline) {
    return new QueryScope(groupBy, matchers, baseline, window);
  }

  /** The same series over {@code range} ending now: one evaluation step's increments. */
  public QueryScope over(Duration range) {
    return new QueryScope(groupBy, matchers, range, Duration.ZERO);
  }

  /** {@code [5m]} or {@code [7d] offset 5m}: the range part of a range selector. */
  public String rangeSelector() {
    String range = "[" + PromQl.range(window) + "]";
    return offset.isZero() ? range : range + " offset " + PromQl.range(offset);
  }

  public QueryScope {
    if (offset == null || offset.isNegative()) {
      throw new IllegalArgumentException("offset must be >= 0");
    }
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
