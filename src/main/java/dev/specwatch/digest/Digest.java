package dev.specwatch.digest;

import java.util.List;
import java.util.Optional;

/** The weekly digest: every recipe's week and a fleet summary. */
public record Digest(DigestPeriod period, List<RecipeWeek> recipes) {
  /** A regression: the acceptance rate fell by more than this against the previous week. */
  public static final double REGRESSION_DROP = 0.05;

  public Digest {
    recipes = List.copyOf(recipes);
  }

  /** Recipes that regressed week over week, or dropped within the week. */
  public long regressions() {
    return recipes.stream()
        .filter(r -> r.regression() || r.notes().withinWeekDrop() != null)
        .count();
  }

  /** The recipe whose acceptance fell the most week over week, if any fell. */
  public Optional<RecipeWeek> biggestRegression() {
    return recipes.stream()
        .filter(r -> r.acceptanceChange() != null && r.acceptanceChange() < 0)
        .min((a, b) -> Double.compare(a.acceptanceChange(), b.acceptanceChange()));
  }

  /**
   * The healthy recipe with the highest <em>measured</em> speed-up at the load it ran most
   * (docs/SPEEDUP.md): comparable across recipes with different k, unlike the mean accepted length,
   * and a measurement, unlike the advisor's modelled E_k / (1 + c·k). A recipe that regressed (week
   * over week or within the week), has no data or no measured speed-up is not a candidate; without
   * any, there is no best performer.
   */
  public Optional<RecipeWeek> bestPerformer() {
    return recipes.stream()
        .filter(r -> r.notes().speedup() != null && r.notes().speedup().speedup() != null)
        .filter(r -> !r.regression() && r.notes().withinWeekDrop() == null && !r.notes().noData())
        .max(
            (a, b) -> Double.compare(a.notes().speedup().speedup(), b.notes().speedup().speedup()));
  }

  /** Recipes whose match finds no series at all. */
  public long withoutData() {
    return recipes.stream().filter(r -> r.notes().noData()).count();
  }

  public String subject() {
    long n = regressions();
    return "specwatch weekly "
        + period.label()
        + ": "
        + recipes.size()
        + (recipes.size() == 1 ? " recipe, " : " recipes, ")
        + n
        + (n == 1 ? " regression" : " regressions");
  }
}
