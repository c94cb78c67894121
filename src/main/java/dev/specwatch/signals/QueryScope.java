package dev.specwatch.signals;

import dev.specwatch.model.LabelMatcher;
import dev.specwatch.model.Policy;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * What one query covers: the series selected by {@code matchers}, summed {@code by} the labels that
 * tell recipes apart, over a range {@code window} that ends {@code offset} before the evaluation
 * time; {@code k}, the draft tokens per verification step of the recipes covered, where an engine
 * needs it to turn what it exports into a signal (SGLang exports no draft-token counter: its draft
 * tokens are k per verify call).
 */
public record QueryScope(
    List<String> groupBy,
    List<LabelMatcher> matchers,
    Duration window,
    Duration offset,
    OptionalInt k) {
  public QueryScope(List<String> groupBy, List<LabelMatcher> matchers, Duration window) {
    this(groupBy, matchers, window, Duration.ZERO, OptionalInt.empty());
  }

  public QueryScope(
      List<String> groupBy, List<LabelMatcher> matchers, Duration window, Duration offset) {
    this(groupBy, matchers, window, offset, OptionalInt.empty());
  }

  /** One recipe's series over {@code window}, with its k (none without speculation). */
  public static QueryScope of(Policy p, Duration window) {
    return new QueryScope(
        p.matchLabelNames(),
        p.matchers(),
        window,
        Duration.ZERO,
        p.numSpeculativeTokens() > 0
            ? OptionalInt.of(p.numSpeculativeTokens())
            : OptionalInt.empty());
  }

  /**
   * k, for an engine whose {@code signal} needs it.
   *
   * @throws IllegalArgumentException naming the engine and signal when the scope has none
   */
  int requireK(String engine, Signal signal) {
    return k.orElseThrow(
        () ->
            new IllegalArgumentException(
                engine + "'s " + signal.key() + " needs the recipes' num_speculative_tokens"));
  }

  /** The same scope for recipes with {@code k} draft tokens per step. */
  public QueryScope withK(int draftTokens) {
    return new QueryScope(groupBy, matchers, window, offset, OptionalInt.of(draftTokens));
  }

  /** The same scope without k: for engines whose queries never need it. */
  public QueryScope withoutK() {
    return new QueryScope(groupBy, matchers, window, offset, OptionalInt.empty());
  }

  /** The same series over {@code baseline}, ending where this window starts. */
  public QueryScope baseline(Duration baseline) {
    return new QueryScope(groupBy, matchers, baseline, window, k);
  }

  /** The same series over {@code range} ending now: one evaluation step's increments. */
  public QueryScope over(Duration range) {
    return new QueryScope(groupBy, matchers, range, Duration.ZERO, k);
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
    if (k == null || (k.isPresent() && k.getAsInt() < 1)) {
      throw new IllegalArgumentException("k must be absent or at least 1");
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
