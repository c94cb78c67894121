package dev.specwatch.advisor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which {@code num_speculative_tokens} to run, from measured per-position acceptance.
 *
 * <p>a_i is the fraction of drafts whose token i was accepted (so a_i is non-increasing). With k
 * speculative tokens a verification step emits E_k = 1 + Σ_{i<k} a_i tokens, and costs about 1 +
 * c·k target-model-equivalents when one draft token costs c of a target forward pass; the speed-up
 * over no speculation is E_k / (1 + c·k). For k beyond the measured positions, a_i is extrapolated
 * from the decay of the conditional acceptance a_i / a_{i-1}. With i.i.d. acceptance α (a_i =
 * α^{i+1}) this is the closed form of Leviathan et al. (2023): E_k = (1 − α^{k+1}) / (1 − α).
 */
public final class Advisor {
  /**
   * Draft token cost assumed where no {@code --draft-cost} is given (check/status output, the
   * digest): an MTP head costs about a tenth of a target forward pass.
   */
  public static final double DEFAULT_DRAFT_COST = 0.1;

  /**
   * The data floor: below this many drafts there is no recommendation, only "not enough data"
   * (per-position rates of a few hundred drafts are noise at the 5 % level that decides k).
   */
  public static final double MIN_DRAFTS = 1000;

  private Advisor() {}

  /** One candidate k. {@code extrapolated}: beyond the measured positions. */
  public record Option(int k, double expectedTokens, double speedup, boolean extrapolated) {}

  /**
   * @param recommended the k with the highest estimated speed-up among the measured positions
   *     (never an extrapolated one: {@code warning} names that); the current k when there is not
   *     enough data
   * @param gain relative speed-up of the recommendation over the current k (0 without enough data)
   * @param enough whether the data passes the floor; without it {@code warning} says why and no
   *     number should be shown as a recommendation
   * @param basis what the advice stands on, in words: measured positions, drafts
   */
  public record Advice(
      int currentK,
      List<Double> measured,
      List<Option> options,
      Option recommended,
      double gain,
      String warning,
      boolean enough,
      String basis) {}

  public static Advice advise(
      List<Double> positionAcceptance, int currentK, double draftCost, double drafts) {
    if (positionAcceptance.isEmpty() || positionAcceptance.stream().anyMatch(a -> a == null)) {
      throw new IllegalArgumentException("per-position acceptance is incomplete");
    }
    List<Double> a = new ArrayList<>(positionAcceptance);
    int measured = a.size();
    // Conditional acceptance c_i = a_i / a_{i-1}; extrapolate two more positions.
    for (int extra = 0; extra < 2; extra++) {
      int n = a.size();
      double last = a.get(n - 1);
      double cLast = n >= 2 && a.get(n - 2) > 0 ? last / a.get(n - 2) : last;
      double cPrev = n >= 3 && a.get(n - 3) > 0 ? a.get(n - 2) / a.get(n - 3) : cLast;
      double decay = cPrev > 0 ? cLast / cPrev : 1;
      double cNext = clamp(cLast * Math.min(decay, 1));
      a.add(clamp(last * cNext));
    }
    List<Option> options = new ArrayList<>();
    double expected = 1;
    for (int k = 1; k <= a.size(); k++) {
      expected += a.get(k - 1);
      options.add(new Option(k, expected, expected / (1 + draftCost * k), k > measured));
    }
    Option best = options.get(0);
    for (Option o : options) {
      if (o.speedup() > best.speedup()) {
        best = o;
      }
    }
    Option current = options.get(Math.min(currentK, options.size()) - 1);
    String basis =
        String.format(
            Locale.ROOT,
            "%d measured position%s of k=%d, %.0f drafts",
            measured,
            measured == 1 ? "" : "s",
            currentK,
            drafts);
    if (drafts < MIN_DRAFTS) {
      return new Advice(
          currentK,
          positionAcceptance,
          options,
          current,
          0,
          String.format(
              Locale.ROOT,
              "not enough data: %.0f drafts (a recommendation needs %.0f)",
              drafts,
              MIN_DRAFTS),
          false,
          basis);
    }
    if (measured < 2 && best.extrapolated()) {
      // One position says nothing about how acceptance decays: a larger k would be a guess.
      return new Advice(
          currentK,
          positionAcceptance,
          options,
          current,
          0,
          "not enough data: one measured position cannot show how acceptance decays with k;"
              + " try k=2 and measure again",
          false,
          basis);
    }
    // The recommendation stays within the measured positions: a larger k is modelled from how
    // acceptance decayed so far, which is a guess until it is run; it is named, not recommended.
    Option bestMeasured = options.get(0);
    for (Option o : options) {
      if (!o.extrapolated() && o.speedup() > bestMeasured.speedup()) {
        bestMeasured = o;
      }
    }
    String warning =
        best.extrapolated()
            ? String.format(
                Locale.ROOT,
                "k=%d is modelled %+.1f %% above k=%d, beyond the %d measured position%s"
                    + " (extrapolated, not recommended): try it with a benchmark",
                best.k(),
                (best.speedup() / bestMeasured.speedup() - 1) * 100,
                bestMeasured.k(),
                measured,
                measured == 1 ? "" : "s")
            : null;
    return new Advice(
        currentK,
        positionAcceptance,
        options,
        bestMeasured,
        bestMeasured.speedup() / current.speedup() - 1,
        warning,
        true,
        basis);
  }

  private static double clamp(double v) {
    return Math.max(0, Math.min(1, v));
  }
}
