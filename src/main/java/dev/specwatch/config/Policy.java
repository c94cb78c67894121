package dev.specwatch.config;

import dev.specwatch.signals.LabelMatcher;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One recipe (a model deployment with its speculative config) and what it is held to. Loaded from
 * {@code alerts/<recipe>.yaml}; docs/CONFIG.md documents every key.
 *
 * @param match equality matchers that select the recipe's series; their label names are how results
 *     are told apart, so two recipes with the same label names must differ in a value
 * @param minDrafts fewer drafts in the window: low_traffic, no verdict
 */
public record Policy(
    String recipe,
    String engine,
    SortedMap<String, String> match,
    int numSpeculativeTokens,
    long minDrafts,
    Duration forDuration,
    Duration keepFiringFor,
    Thresholds thresholds,
    Notify notification,
    Map<String, String> labels,
    Optional<String> runbookUrl,
    Location source) {

  public static final long DEFAULT_MIN_DRAFTS = 100;
  public static final Duration DEFAULT_FOR = Duration.ofMinutes(5);
  public static final Duration DEFAULT_KEEP_FIRING_FOR = Duration.ofMinutes(5);

  public Policy {
    if (recipe == null || recipe.isBlank() || match.isEmpty() || numSpeculativeTokens < 1) {
      throw new IllegalArgumentException("recipe, match and num_speculative_tokens are required");
    }
    match = new TreeMap<>(match);
    labels = Map.copyOf(labels);
  }

  /** Thresholds of one recipe; each is optional. Positions are 0-based draft positions. */
  public record Thresholds(
      Optional<Threshold> acceptanceRate,
      Optional<Threshold> meanAcceptedLength,
      SortedMap<Integer, Threshold> positionAcceptance) {
    public Thresholds {
      positionAcceptance = new TreeMap<>(positionAcceptance);
    }

    public static Thresholds none() {
      return new Thresholds(Optional.empty(), Optional.empty(), new TreeMap<>());
    }
  }

  /** Where and how loudly this recipe's alerts are sent. */
  public record Notify(Optional<String> slackChannel, String severity) {
    public static final String DEFAULT_SEVERITY = "warning";
  }

  public List<LabelMatcher> matchers() {
    return match.entrySet().stream()
        .map(e -> LabelMatcher.equal(e.getKey(), e.getValue()))
        .toList();
  }

  /** The label names that identify this recipe's series, sorted. */
  public List<String> matchLabelNames() {
    return List.copyOf(match.keySet());
  }
}
