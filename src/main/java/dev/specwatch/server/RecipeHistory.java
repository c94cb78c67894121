package dev.specwatch.server;

import java.util.Optional;

/**
 * What the recipe page shows from history rather than the evaluation window, computed at most every
 * few minutes: the speed-up by load over the last day, and the advisor over a window long enough to
 * be stable (the evaluation window of a minute makes it flip between k=3 and k=5), and the signals
 * over the span asked for, for the charts over time.
 *
 * @param loading the datasource has not answered yet: nothing here, the page says it is loading
 */
public record RecipeHistory(
    Optional<SpeedupView> speedup,
    Optional<Advice> advice,
    Optional<ChartData> charts,
    boolean loading) {
  public static final RecipeHistory NONE =
      new RecipeHistory(Optional.empty(), Optional.empty(), Optional.empty());

  /** What was computed. */
  public RecipeHistory(
      Optional<SpeedupView> speedup, Optional<Advice> advice, Optional<ChartData> charts) {
    this(speedup, advice, charts, false);
  }

  /**
   * Still loading: the datasource has not answered within the page's wait. The page says so and the
   * next view shows what the load brought.
   */
  public static final String LOADING_TEXT =
      "Prometheus has not answered yet: the charts, the speed-up and the advice are still"
          + " loading. Reload in a moment.";

  public static final RecipeHistory LOADING =
      new RecipeHistory(Optional.empty(), Optional.empty(), Optional.empty(), true);

  /**
   * @param recommendedK null without enough data ({@code warning} says why)
   * @param basis what it stands on, window included ("3 measured positions … over the last 1h")
   */
  public record Advice(Integer recommendedK, String basis, String warning) {}
}
