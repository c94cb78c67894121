package dev.specwatch.digest;

import java.time.Duration;
import java.time.LocalDate;
import java.util.List;

/**
 * One recipe over one week. Ratios come from counter increases over the whole week (token-
 * weighted), never from averaging ratios. Null: no value (no traffic, not exported).
 *
 * @param acceptedShare share of generated tokens that were accepted draft tokens
 * @param idleShare share of the week's hours without drafts
 * @param acceptanceChange relative change of the acceptance rate against the previous week
 * @param sloCompliance the recipe's SLO compliance over its period at the end of the week
 * @param recommendedK the advisor's num_speculative_tokens from the week's positions; null when the
 *     data is below the advisor's floor
 * @param adviceBasis what the advice stands on, or why there is none ("not enough data: ...")
 */
public record RecipeWeek(
    String recipe,
    String engine,
    String modelName,
    Double acceptanceRate,
    Double meanAcceptedLength,
    List<Double> positionAcceptance,
    Double draftTokens,
    Double acceptedTokens,
    Double wastedTokens,
    Double generationTokens,
    Double acceptedShare,
    Double idleShare,
    List<Day> daily,
    Double hourlyP10,
    Double hourlyMedian,
    Double hourlyP90,
    Double previousAcceptanceRate,
    Double previousMeanAcceptedLength,
    Double acceptanceChange,
    Double meanLengthChange,
    boolean regression,
    int alertsFired,
    Duration firingTotal,
    Duration firingLongest,
    String dashboardUrl,
    Double sloCompliance,
    Double sloBudgetRemaining,
    Integer recommendedK,
    Double recommendedGain,
    String adviceBasis,
    Notes notes) {

  /**
   * What the digest must say so that nothing misleads.
   *
   * @param k num_speculative_tokens: the mean accepted length chart runs from 1 to k+1
   * @param previousPositions last week's acceptance by position, beside this week's
   * @param noData the recipe's match finds no series at all: not idle, misconfigured or down
   * @param unfinished the period has not ended: figures cover it up to now
   * @param speedup the advisor's estimated speed-up of the current k (E_k / (1 + c·k)); comparable
   *     across recipes with different k; null without enough data
   * @param withinWeekDrop a day more than the regression threshold below the week's earlier days,
   *     in words; null when there is none
   */
  public record Notes(
      int k,
      List<Double> previousPositions,
      boolean noData,
      boolean unfinished,
      Double speedup,
      String withinWeekDrop) {}

  public record Day(LocalDate date, Double acceptanceRate, Double meanAcceptedLength) {}
}
