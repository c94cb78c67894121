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

  public long regressions() {
    return recipes.stream().filter(RecipeWeek::regression).count();
  }

  /** The recipe whose acceptance fell the most week over week, if any fell. */
  public Optional<RecipeWeek> biggestRegression() {
    return recipes.stream()
        .filter(r -> r.acceptanceChange() != null && r.acceptanceChange() < 0)
        .min((a, b) -> Double.compare(a.acceptanceChange(), b.acceptanceChange()));
  }

  /** The recipe with the highest mean accepted length (tokens per verification step). */
  public Optional<RecipeWeek> bestPerformer() {
    return recipes.stream()
        .filter(r -> r.meanAcceptedLength() != null)
        .max((a, b) -> Double.compare(a.meanAcceptedLength(), b.meanAcceptedLength()));
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
