package dev.specwatch.signals;

import dev.specwatch.prometheus.Series;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where an engine says which k its servers run (docs/ENGINES.md, "k as the engine reports it"): a
 * gauge of the active value (SGLang's {@code sglang:spec_num_draft_tokens}, less its bonus token),
 * or the number of positions a per-position counter has series for (vLLM registers one per position
 * of its {@code num_speculative_tokens} at start-up; other engines only once a position has been
 * drafted or accepted, so their count is a lower bound of the longest draft).
 *
 * @param series the gauge, or the per-position counter
 * @param positionLabel the per-position counter's position label; null for a gauge
 * @param offset added to the gauge's value to make it k ({@code -1} for SGLang's draft tokens)
 * @param exact the figure is the k the servers run, not a lower bound of it
 * @param inFigures the engine's queries divide by this k instead of the policy's (SGLang's
 *     acceptance and draft tokens)
 * @param says how the figure was read, for people: {@code sglang:spec_num_draft_tokens - 1}
 */
public record ActiveK(
    String series,
    String positionLabel,
    int offset,
    boolean exact,
    boolean inFigures,
    String says) {

  /** A gauge of the active value, {@code offset} away from k, which the figures read. */
  public static ActiveK gauge(String series, int offset, String says) {
    return new ActiveK(series, null, offset, true, true, says);
  }

  /** The number of positions of a per-position counter; {@code exact} where all are registered. */
  public static ActiveK positions(String series, String positionLabel, boolean exact) {
    return new ActiveK(
        series,
        positionLabel,
        0,
        exact,
        false,
        "the positions of "
            + series
            + (exact ? " (one per draft position, registered at start-up)" : " seen so far"));
  }

  /**
   * One query for a group of recipes: by the scope's labels, the lowest and the highest k over the
   * window, told apart by a {@code k_bound} label ({@code min}, {@code max}); a position count is
   * one figure, labelled {@code max}.
   */
  String query(QueryScope scope) {
    String max = "label_replace(" + rangeQuery(scope) + ", \"k_bound\", \"max\", \"\", \"\")";
    if (positionLabel != null) {
      return max;
    }
    return max
        + "\n  or\nlabel_replace("
        + PromQl.aggregate("min", scope.groupBy(), "min_over_time", series, scope)
        + ", \"k_bound\", \"min\", \"\", \"\")";
  }

  /**
   * A series of k over time for a recipe's charts: the highest the servers reported in each step (a
   * gauge's values, plus {@link #offset()} applied by the caller; or the number of positions).
   */
  public String rangeQuery(QueryScope scope) {
    if (positionLabel != null) {
      List<String> byPosition = new ArrayList<>(scope.groupBy());
      byPosition.add(positionLabel);
      return "count by ("
          + PromQl.labelList(scope.groupBy())
          + ") ("
          + PromQl.aggregate("group", byPosition, "last_over_time", series, scope)
          + ")";
    }
    return PromQl.aggregate("max", scope.groupBy(), "max_over_time", series, scope);
  }

  /** The k a value of the source stands for: the gauge's value plus its offset, or the count. */
  public double kOf(double value) {
    return value + offset;
  }

  /**
   * The changes of k along a series of {@link #rangeQuery} (one point a step), oldest first; a gap
   * is skipped, so a k read before and after an idle stretch is compared across it.
   */
  public List<Change> changes(Series series) {
    List<Instant> times = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    for (Series.Point point : series.points()) {
      times.add(Instant.ofEpochMilli(Math.round(point.time() * 1000)));
      values.add(kOf(point.value()));
    }
    return changes(times, values);
  }

  /** The servers' k went from {@code before} to {@code after} at the step ending {@code at}. */
  public record Change(Instant at, int before, int after) {
    /** "k 3 → 5": for the chart's mark and the digest. */
    public String text() {
      return "k " + before + " \u2192 " + after;
    }
  }

  /**
   * The changes of a series of k, one value a step ({@code values} rounded; a gap is skipped, so a
   * k read before and after an idle stretch is compared across it).
   */
  public static List<Change> changes(List<Instant> times, List<Double> values) {
    List<Change> out = new ArrayList<>();
    Integer last = null;
    for (int i = 0; i < times.size(); i++) {
      if (!Double.isFinite(values.get(i))) {
        continue;
      }
      int now = (int) Math.round(values.get(i));
      if (last != null && now != last) {
        out.add(new Change(times.get(i), last, now));
      }
      last = now;
    }
    return out;
  }

  /**
   * What the servers reported over the window.
   *
   * @param min the lowest k in the window (the same as max for a position count)
   * @param max the highest
   * @param exact whether max is the k run, or a lower bound of the longest draft
   * @param inFigures whether the figures used it instead of the policy's k
   * @param says how it was read
   * @param meanDraft the drafts' mean length over the window (draft tokens / drafts), where the
   *     engine counts both; null where it does not, or without drafts
   */
  public record Reading(
      int min, int max, boolean exact, boolean inFigures, String says, Double meanDraft) {
    public Reading(int min, int max, boolean exact, boolean inFigures, String says) {
      this(min, max, exact, inFigures, says, null);
    }

    /** This reading with the drafts' mean length over the window. */
    public Reading withMeanDraft(Double mean) {
      return new Reading(min, max, exact, inFigures, says, mean);
    }

    /**
     * The sentence when drafts are shorter than k on average (by more than a twentieth of a token):
     * the engine proposed fewer tokens than it may (vLLM's draft-length policy or dynamic
     * speculation, an n-gram proposer finding shorter matches, llama.cpp's draft stopping early).
     */
    public Optional<String> draftNote(int policyK) {
      int k = exact ? max : policyK;
      if (meanDraft == null || meanDraft >= k - 0.05) {
        return Optional.empty();
      }
      return Optional.of(
          String.format(
              Locale.ROOT,
              "drafts average %.2f tokens of k = %d: the engine proposes shorter drafts than k"
                  + " (a draft-length policy or dynamic speculation, an n-gram proposer finding"
                  + " shorter matches, a draft stopping early); acceptance and the accepted length"
                  + " are exact, acceptance by position counts every draft, whether it reached the"
                  + " position or not",
              meanDraft,
              k));
    }

    /** How the servers' k disagrees with the policy's, if it does. */
    private enum Disagreement {
      /** k moved within the window. */
      MOVED,
      /** An exact k other than the policy's. */
      OTHER,
      /** A lower bound already beyond the policy's k. */
      BEYOND
    }

    /**
     * The one decision behind {@link #note} and {@link #brief}: empty when the servers agree with
     * the policy, or report a lower bound within its k (drafts may stop short of k).
     */
    private Optional<Disagreement> disagreement(int policyK) {
      if (min != max) {
        return Optional.of(Disagreement.MOVED);
      }
      if (exact && max != policyK) {
        return Optional.of(Disagreement.OTHER);
      }
      if (!exact && max > policyK) {
        return Optional.of(Disagreement.BEYOND);
      }
      return Optional.empty();
    }

    /**
     * The sentence for check, the UI and the API when the servers disagree with the policy's k, or
     * empty when they agree (or report a lower bound within it).
     */
    public Optional<String> note(int policyK) {
      return disagreement(policyK)
          .map(
              d ->
                  switch (d) {
                    case MOVED ->
                        String.format(
                            Locale.ROOT,
                            "k changed within the window: the servers ran k from %d to %d (%s), the"
                                + " policy's num_speculative_tokens is %d; %s",
                            min,
                            max,
                            says,
                            policyK,
                            inFigures
                                ? "the figures divide by the servers' k averaged over the window"
                                : "the engine may pick k itself, and figures that divide by k use "
                                    + policyK);
                    case OTHER ->
                        String.format(
                            Locale.ROOT,
                            "k mismatch: the servers run k = %d (%s), the policy says"
                                + " num_speculative_tokens: %d; set it to %d%s",
                            max,
                            says,
                            policyK,
                            max,
                            inFigures
                                ? " (the figures here already divide by the servers' k)"
                                : "");
                    case BEYOND ->
                        String.format(
                            Locale.ROOT,
                            "k mismatch: drafts reach %d tokens (%s), beyond the policy's"
                                + " num_speculative_tokens: %d; set it to at least %d",
                            max,
                            says,
                            policyK,
                            max);
                  });
    }

    /**
     * The same disagreement in a clause short enough for an alert's reason ("acceptance_rate 0.410
     * below 0.450; the servers' k moved between 3 and 5 in the window, the policy's is 5"), or
     * empty when there is none.
     */
    public Optional<String> brief(int policyK) {
      return disagreement(policyK)
          .map(
              d ->
                  switch (d) {
                    case MOVED ->
                        String.format(
                            Locale.ROOT,
                            "the servers' k moved between %d and %d in the window, the policy's is"
                                + " %d",
                            min,
                            max,
                            policyK);
                    case OTHER ->
                        String.format(
                            Locale.ROOT,
                            "the servers run k = %d, the policy says %d",
                            max,
                            policyK);
                    case BEYOND ->
                        String.format(
                            Locale.ROOT,
                            "drafts reach %d tokens, beyond the policy's k of %d",
                            max,
                            policyK);
                  });
    }
  }
}
