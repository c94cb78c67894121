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
   * @param speedup what speculation bought that week, measured against the recipe's {@code
   *     speedup_baseline} (docs/SPEEDUP.md), or why it was not measured
   * @param withinWeekDrop a day more than the regression threshold below the week's earlier days,
   *     in words; null when there is none
   * @param observed how much of the week the recipe's series existed (what the idle share is a
   *     share of)
   * @param noDataReason with {@code noData}, what Prometheus does have, in words (nothing of the
   *     engine yet, or series the match does not select); null otherwise
   * @param kChanges the week's changes of the k the servers ran, in words ("k 3 → 5 on Tue 14:05"),
   *     where the engine reports it; null when it did not change
   */
  public record Notes(
      int k,
      List<Double> previousPositions,
      boolean noData,
      boolean unfinished,
      Speedup speedup,
      String withinWeekDrop,
      java.time.Duration observed,
      String noDataReason,
      String kChanges) {}

  /**
   * The measured speed-up at the load the recipe ran most of the week.
   *
   * @param speedup null when not measured ({@code note} says why)
   * @param note why not measured; with a speed-up, why it may be confounded (the two sides'
   *     requests differ in length), or null
   * @param runningMin the bucket of running requests with the most hours of data on the speculative
   *     side (among those with a number)
   * @param paysUpToRunning the largest load of a bucket whose verdict is {@code pays} (its 95 %
   *     interval above 1×), null when none
   * @param stoppedPaying the day it stopped paying at a load it paid at earlier in the week, in
   *     words ("stopped paying above 7 running requests on Wed"); null when it did not
   * @param overall the one k for all the load it ran, from the week's speed-up and acceptance by
   *     load (what {@code advise} and the recipe page recommend); null without them
   */
  public record Speedup(
      String baseline,
      Double speedup,
      Double low,
      Double high,
      int runningMin,
      int runningMax,
      Integer paysUpToRunning,
      String stoppedPaying,
      String note,
      List<Bar> byLoad,
      dev.specwatch.advisor.LoadSchedule.Overall overall) {
    public Speedup {
      byLoad = byLoad == null ? List.of() : List.copyOf(byLoad);
    }

    public static Speedup notMeasured(String note) {
      return new Speedup(null, null, null, null, 0, 0, null, null, note, List.of(), null);
    }

    /** "1.19× per request at 4–7 running requests" (or 1 running request). */
    public String headline() {
      return dev.specwatch.advisor.SpeedupByLoad.headline(speedup, runningMin, runningMax);
    }
  }

  /** One bucket of the week's speed-up by load, for the chart; {@code speedup} null: no number. */
  public record Bar(String load, Double speedup, String verdict) {}

  /**
   * One day of the week; {@code partial} for today while the week is in progress (its figures cover
   * the day up to now).
   */
  public record Day(
      LocalDate date, Double acceptanceRate, Double meanAcceptedLength, boolean partial) {}
}
