package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.specwatch.detect.DropTest;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.signals.Increments;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SignalValues;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code min_relative_drop} is a floor (docs/DETECTION.md): a long excursion above the floor never
 * pages, a drop well below it does, and the reason states the drop against the learned level.
 */
class ChangeRuleTest {
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
  private static final Duration STEP = Duration.ofMinutes(2);
  private static final NoiseModel MODEL =
      new NoiseModel(null, 0.6, 2.0, 0.0001, 0.0001, 1200, Duration.ofDays(7), 5040, T0);
  private static final ChangeRule RULE =
      new ChangeRule(
          new Policy.Change(0.10, Duration.ofDays(30), Duration.ofDays(7), Optional.empty()),
          Severity.WARNING);

  /** Steps at {@code level} until the rule alarms or {@code steps} pass; the alarm step or -1. */
  private static long run(double level, long steps, long seed) {
    return run(level, steps, seed, Noise.MODEL);
  }

  /**
   * The noise of a step's acceptance around its level, as a multiple of the model's sd: the model's
   * own (Gaussian at its variance) or three it does not know, each with the same or a larger
   * variance (DropTestTest measures the same three on the test alone).
   */
  enum Noise {
    /** Independent Gaussian steps at the model's variance. */
    MODEL,
    /** Student t with 3 degrees of freedom scaled to the model's variance: rare large steps. */
    HEAVY_TAILS,
    /** AR(1), correlation 0.5 step to step, the model's variance: runs of low steps. */
    CORRELATED,
    /** Independent Gaussian steps with 1.5 times the model's sd: a model learned too narrow. */
    WIDER;

    /** The next standardised draw; {@code previous} is the last one (for CORRELATED). */
    double next(SplittableRandom random, double previous) {
      return switch (this) {
        case MODEL -> random.nextGaussian();
        case HEAVY_TAILS -> {
          double chi2 = 0;
          for (int j = 0; j < 3; j++) {
            double z = random.nextGaussian();
            chi2 += z * z;
          }
          yield random.nextGaussian() / Math.sqrt(chi2 / 3) / Math.sqrt(3.0);
        }
        case CORRELATED -> 0.5 * previous + Math.sqrt(1 - 0.25) * random.nextGaussian();
        case WIDER -> 1.5 * random.nextGaussian();
      };
    }
  }

  private static long run(double level, long steps, long seed, Noise noise) {
    SplittableRandom random = new SplittableRandom(seed);
    DropTest.State state = null;
    double z = 0;
    for (long i = 1; i <= steps; i++) {
      Instant at = T0.plus(STEP.multipliedBy(i));
      double trials = 1200;
      double sd = Math.sqrt(MODEL.variance(level, trials));
      z = noise.next(random, z);
      double y = Math.min(1, Math.max(0, level + sd * z));
      RecipeSnapshot s =
          new RecipeSnapshot(
                  "r",
                  "vllm",
                  RecipeState.OK,
                  SignalValues.empty(3),
                  List.of(),
                  Optional.empty(),
                  Optional.empty())
              .withIncrements(
                  new Increments(
                      STEP, trials, Math.round(y * trials) + 0.0, trials / 3, List.of()));
      Rule.Judged j =
          RULE.judge(s, new Rule.Context(at, new RecipeModel(MODEL, "learned", T0, STEP), state));
      state = j.detector();
      if (j.verdict().kind() == Verdict.Kind.BREACHED) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void aLongExcursionAboveTheFloorNeverPages() {
    // −6 % at a 10 % floor, for ten days of 2-minute steps, five seeds: never.
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(run(0.6 * 0.94, 7200, seed)).as("seed " + seed).isEqualTo(-1);
    }
  }

  @Test
  void heavyTailedStepsAboveTheFloorNeverPage() {
    // Student t3 steps at the model's variance, healthy and at -6 %, ten days of 2-minute steps,
    // ten seeds: never. Before a step's weight was capped (CusumStep.STEP_CAP) one step 10 to 15
    // sds low alarmed the largest shift's statistic on its own: all ten healthy seeds paged,
    // after 3 h to 7.5 days.
    for (double level : new double[] {0.6, 0.6 * 0.94}) {
      for (long seed = 1; seed <= 10; seed++) {
        assertThat(run(level, 7200, seed, Noise.HEAVY_TAILS))
            .as("level %.3f seed %d", level, seed)
            .isEqualTo(-1);
      }
    }
  }

  @Test
  void correlatedStepsAboveTheFloorNeverPage() {
    // AR(1) at 0.5: the variance of an hour's sum is three times the model's, yet -6 % is far
    // enough above the floor: ten days, ten seeds, never.
    for (long seed = 1; seed <= 10; seed++) {
      assertThat(run(0.6 * 0.94, 7200, seed, Noise.CORRELATED)).as("seed %d", seed).isEqualTo(-1);
    }
  }

  @Test
  void offModelNoiseStillFindsADropWellBelowTheFloorWithinMinutes() {
    // -20 %: two to seven steps under every noise the model does not know (its own: two to five,
    // the same steps as before the cap).
    for (Noise noise : Noise.values()) {
      for (long seed = 1; seed <= 10; seed++) {
        assertThat(run(0.6 * 0.80, 720, seed, noise))
            .as("%s seed %d", noise, seed)
            .isBetween(2L, 10L);
      }
    }
  }

  @Test
  void aDropWellBelowTheFloorPagesWithinMinutesAndSaysByHowMuch() {
    for (long seed = 1; seed <= 5; seed++) {
      long at = run(0.6 * 0.80, 720, seed);
      // −20 %: twice the floor; at 1200 drafts a step the evidence is overwhelming in a few steps.
      assertThat(at).as("seed " + seed).isBetween(1L, 10L);
    }
  }

  /** A model whose hours-long wander makes the statistics slow (a young or wandering recipe). */
  private static final NoiseModel WANDERING =
      new NoiseModel(null, 0.6, 2.0, 0.0001, 0.05, 1200, Duration.ofDays(1), 288, T0);

  /**
   * Steps whose window acceptance is {@code window(i)} (the step's own proportion equal to it),
   * judged with the wandering model; the verdicts' reasons, one per step.
   */
  private static List<String> windows(java.util.function.LongFunction<Double> window, long steps) {
    return windows(window, window, steps);
  }

  /**
   * {@link #windows(java.util.function.LongFunction, long)} with the step's own proportion {@code
   * step(i)} apart from the window's (a window lags the steps by up to its length).
   */
  private static List<String> windows(
      java.util.function.LongFunction<Double> window,
      java.util.function.LongFunction<Double> step,
      long steps) {
    return windows(window, step, steps, java.util.function.UnaryOperator.identity());
  }

  /**
   * {@link #windows(java.util.function.LongFunction, java.util.function.LongFunction, long)}, the
   * state passed through {@code persist} between steps (as a restart reads it back).
   */
  private static List<String> windows(
      java.util.function.LongFunction<Double> window,
      java.util.function.LongFunction<Double> step,
      long steps,
      java.util.function.UnaryOperator<DropTest.State> persist) {
    DropTest.State state = null;
    List<String> out = new java.util.ArrayList<>();
    for (long i = 1; i <= steps; i++) {
      Instant at = T0.plus(STEP.multipliedBy(i));
      double y = window.apply(i);
      RecipeSnapshot s =
          new RecipeSnapshot(
                  "r",
                  "vllm",
                  RecipeState.OK,
                  new SignalValues(y, null, List.of(), null, null, null, 400.0, null),
                  List.of(),
                  Optional.empty(),
                  Optional.empty())
              .withIncrements(new Increments(STEP, 1200.0, step.apply(i) * 1200, 400.0, List.of()));
      Rule.Judged j =
          RULE.judge(
              s, new Rule.Context(at, new RecipeModel(WANDERING, "learned", T0, STEP), state));
      state = persist.apply(j.detector());
      out.add(j.verdict().kind() + ": " + j.verdict().reason());
    }
    return out;
  }

  @Test
  void theBackstopPagesAGrossDropHeldForTenMinutesWhereTheStatisticsAreSlow() {
    // −30 % from step 6 on (2-minute steps): under the line (−20 %) at steps 6..; 10 minutes
    // later, at step 11, it pages, dated from step 6.
    List<String> v = windows(i -> i < 6 ? 0.6 : 0.42, 20);
    assertThat(v.subList(0, 10)).allMatch(r -> r.startsWith("CLEAR"));
    assertThat(v.get(10))
        .startsWith("BREACHED: change: acceptance 0.420 since 2026-11-01 00:12:00 UTC")
        .contains(
            "(-30.0 %, below the 10 % floor; a gross drop: the window's acceptance under 20"
                + " % below its learned level for 10m; sequential test");
    assertThat(v.get(19)).startsWith("BREACHED");
  }

  @Test
  void theBackstopIgnoresShortDipsAndDropsAboveItsLine() {
    // Eight minutes at −30 % (under the line), then back: no page.
    assertThat(windows(i -> i >= 3 && i < 7 ? 0.42 : 0.6, 30))
        .allMatch(r -> !r.startsWith("BREACHED"));
    // −15 % for an hour: above the backstop's line, and too little evidence for the statistics
    // with this much wander.
    assertThat(windows(i -> 0.6 * 0.85, 30)).allMatch(r -> !r.startsWith("BREACHED"));
  }

  @Test
  void theBackstopPagesOnlyADropThatIsStillThere() {
    // At the floor (−10 %), an excursion to −35 % for 8 minutes (steps 3..6, 2-minute steps): the
    // window lags it and stays under the line (−20 %) from step 4 to step 9, 10 minutes, but by
    // step 9 the steps are back at the floor. The excursion has ended: no page.
    List<String> ended =
        windows(
            i -> i >= 4 && i <= 9 ? 0.6 * 0.7 : 0.6 * 0.9, i -> i >= 3 && i <= 6 ? 0.39 : 0.54, 30);
    assertThat(ended).allMatch(r -> !r.startsWith("BREACHED"));
    // A sustained −30 % from step 6 whose step 11 reads back at the level: the page waits for the
    // next step under the line, step 12, and is dated from the window's first step under it.
    List<String> sustained =
        windows(i -> i < 6 ? 0.6 : 0.42, i -> i < 6 || i == 11 ? 0.6 : 0.42, 20);
    assertThat(sustained.subList(0, 11)).allMatch(r -> r.startsWith("CLEAR"));
    assertThat(sustained.get(11))
        .startsWith("BREACHED: change: acceptance")
        .contains("since 2026-11-01 00:12:00 UTC")
        .contains("a gross drop");
  }

  @Test
  void anAlertResolvesOnceTheWindowHeldAboveTheClearLineForHalfAnHour() {
    // −30 % from step 6 pages at step 11 (the backstop: this model's statistics are slow, and its
    // recovery statistics slower); back at the level from step 20 (2-minute steps): the window is
    // at or above the clear line (−5 %) from step 20, and 30 minutes later, at step 35, the alert
    // resolves, whatever the recovery statistics say yet.
    List<String> back = windows(i -> i < 6 || i >= 20 ? 0.6 : 0.42, 60);
    assertThat(back.subList(10, 34)).allMatch(r -> r.startsWith("BREACHED"));
    assertThat(back.get(34))
        .isEqualTo(
            "CLEAR: recovered: acceptance back near its learned level 0.600 (last step 0.600; the"
                + " window at or above 0.570 for 30m)");
    assertThat(back.subList(35, 60)).allMatch(r -> r.startsWith("CLEAR"));
    // A step whose window is under the line starts the run over: back from step 20, under again
    // at step 28, back from 29: resolved at step 44.
    List<String> broken = windows(i -> i < 6 || (i >= 20 && i != 28) ? 0.6 : 0.42, 60);
    assertThat(broken.subList(10, 43)).allMatch(r -> r.startsWith("BREACHED"));
    assertThat(broken.get(43)).startsWith("CLEAR");
    // The run is part of the persisted state: written and read back between every two steps (a
    // daemon restarted each step, or a replica taking over), the alert resolves at the same step.
    java.util.function.LongFunction<Double> level = i -> i < 6 || i >= 20 ? 0.6 : 0.42;
    assertThat(windows(level, level, 60, ChangeRuleTest::readBack)).isEqualTo(back);
    // A drop that lasts, −12 % after the page (past the floor, above the backstop's line): the
    // window never reaches the clear line and the alert stays open.
    List<String> lasting = windows(i -> i < 6 ? 0.6 : i < 20 ? 0.42 : 0.528, 60);
    assertThat(lasting.subList(10, 60)).allMatch(r -> r.startsWith("BREACHED"));
  }

  @Test
  void aStateWrittenBeforeTheRecoveryRunReadsWithoutOne() throws Exception {
    // A release before 2026-12-07 wrote no clear_since: its alarmed state reads back alarmed, its
    // run not started (the next step with the window above the line starts it).
    DropTest.State alarmed =
        new DropTest.State(List.of(9.0, 1.0), List.of(0.5, 0.0), true, T0, T0, 510, 1000, 600, T0);
    var json =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            dev.specwatch.store.DurableFiles.JSON.valueToTree(
                alarmed.clearSince(T0.plusSeconds(60)));
    assertThat(json.remove("clear_since")).isNotNull();
    DropTest.State old =
        dev.specwatch.store.DurableFiles.JSON.treeToValue(json, DropTest.State.class);
    assertThat(old.clearSince()).isNull();
    assertThat(old).isEqualTo(alarmed);
  }

  /** {@code state} written as the state store writes it, and read back. */
  private static DropTest.State readBack(DropTest.State state) {
    try {
      return dev.specwatch.store.DurableFiles.JSON.readValue(
          dev.specwatch.store.DurableFiles.JSON.writeValueAsBytes(state), DropTest.State.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * A model whose wander against the learned level is large (hours-long correlations: the main test
   * is slow) but small against the hour before (docs/DETECTION.md, "Sudden drops").
   */
  private static final NoiseModel SLOW_WANDER =
      new NoiseModel(
          null, 0.6, 2.0, 0.0001, 0.05, 1200, Duration.ofDays(7), 5040, T0, null, 0.0002);

  /** The first breach of steps at {@code level(i)} with binomial noise: "step: reason", or null. */
  private static String firstBreach(
      NoiseModel model, java.util.function.LongFunction<Double> level, long steps, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    DropTest.State state = null;
    for (long i = 1; i <= steps; i++) {
      Instant at = T0.plus(STEP.multipliedBy(i));
      double trials = 1200;
      double p = level.apply(i);
      double y =
          Math.min(1, Math.max(0, p + Math.sqrt(2 * p * (1 - p) / trials) * random.nextGaussian()));
      RecipeSnapshot s =
          new RecipeSnapshot(
                  "r",
                  "vllm",
                  RecipeState.OK,
                  new SignalValues(p, null, List.of(), null, null, null, 400.0, null),
                  List.of(),
                  Optional.empty(),
                  Optional.empty())
              .withIncrements(
                  new Increments(STEP, trials, Math.round(y * trials) + 0.0, 400.0, List.of()));
      Rule.Judged j =
          RULE.judge(s, new Rule.Context(at, new RecipeModel(model, "learned", T0, STEP), state));
      state = j.detector();
      if (j.verdict().kind() == Verdict.Kind.BREACHED) {
        return i + ": " + j.verdict().reason();
      }
    }
    return null;
  }

  @Test
  void aSuddenDropJustPastTheFloorPagesWithinMinutesWhereTheWanderSlowsTheMainTest() {
    for (long seed = 1; seed <= 5; seed++) {
      // Two healthy hours (the reference needs one), then −15 % at step 61.
      String breach = firstBreach(SLOW_WANDER, i -> i <= 60 ? 0.6 : 0.51, 240, seed);
      assertThat(breach)
          .as("seed %d", seed)
          .isNotNull()
          .contains("a sudden drop: at least the floor");
      long step = stepOf(breach);
      // About a dozen steps of evidence at this traffic and noise (1200 drafts a step, φ = 2;
      // twenty seeds gave 6 to 29), where the main test alone takes more than eight hours.
      assertThat(step).as("seed %d: %s", seed, breach).isBetween(62L, 100L);
      assertThat(breach).contains("against its learned 0.600 (-1");
      // Without the hour before (the same model, no local wander known) the main test alone is
      // slow: nothing within those eight hours.
      NoiseModel unknown =
          new NoiseModel(null, 0.6, 2.0, 0.0001, 0.05, 1200, Duration.ofDays(7), 5040, T0);
      assertThat(firstBreach(unknown, i -> i <= 60 ? 0.6 : 0.51, 240, seed)).isNull();
    }
  }

  /**
   * A model whose history held excursions 36 % deep over 2 minutes, 33 % over 5 and 15 % over 10 (a
   * client whose outputs the draft cannot predict, running for minutes): docs/DETECTION.md, "Short
   * excursions".
   */
  private static final NoiseModel SPIKY =
      MODEL.withShortExcursions(
          List.of(
              new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.15),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(2), -0.36),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(5), -0.33)));

  @Test
  void aSpikeNoDeeperThanTheHistorysOwnShortExcursionsIsWaitedOut() {
    // Two healthy hours, then six minutes 30 % down, then healthy again: the first minutes of a
    // 30 % drop, and with a narrow model both tests page it. With the record neither does.
    java.util.function.LongFunction<Double> spike = i -> i > 60 && i <= 63 ? 0.6 * 0.7 : 0.6;
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(firstBreach(MODEL, spike, 240, seed)).as("seed %d, no record", seed).isNotNull();
      assertThat(firstBreach(SPIKY, spike, 240, seed)).as("seed %d", seed).isNull();
    }
  }

  @Test
  void aDropThatOutlastsTheRecordPagesByTheLongestLengthAtTheLatest() {
    java.util.function.LongFunction<Double> drop = i -> i <= 60 ? 0.6 : 0.6 * 0.7;
    for (long seed = 1; seed <= 5; seed++) {
      String fast = firstBreach(MODEL, drop, 240, seed);
      String held = firstBreach(SPIKY, drop, 240, seed);
      assertThat(fast).as("seed %d", seed).isNotNull();
      assertThat(held).as("seed %d", seed).isNotNull();
      long at = stepOf(held);
      // 30 % is deeper than the 10-minute record would be at the floor ((0.9)(0.85) − 1 =
      // −23.5 %), about as deep as the 8-minute one's (−30 %) and not as the 6-minute one's
      // (−36.5 %): the page waits for the fourth or fifth step (eight or ten minutes), where the
      // narrow model pages at the second.
      assertThat(stepOf(fast)).as(fast).isLessThanOrEqualTo(62);
      assertThat(at).as(held).isBetween(64L, 65L);
      assertThat(held).containsPattern("\\(-(2[5-9]|3[0-5])\\.\\d %");
    }
  }

  @Test
  void aStormThatEndsWithinTheRecordDoesNotPageTheStepAfterIt() {
    // Eight minutes 25 % down, then healthy (the backstop's 20 % line is crossed for 8 minutes, not
    // its 10). The record holds the storm to its end, while its steps add evidence far past the
    // thresholds; with that excess kept, the first healthy step past the record still paged
    // (this test failed so before the hold). Held at the thresholds, one healthy step brings the
    // statistics under them. A narrow model pages the storm.
    java.util.function.LongFunction<Double> storm = i -> i > 60 && i <= 64 ? 0.6 * 0.75 : 0.6;
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(firstBreach(MODEL, storm, 240, seed)).as("seed %d, no record", seed).isNotNull();
      assertThat(firstBreach(SPIKY, storm, 240, seed)).as("seed %d", seed).isNull();
    }
  }

  /**
   * {@link #SPIKY}'s history with clusters too: its windows of 20 and 30 minutes went 24 and 20 %
   * under the level once per interval (bursts that overlap, a load test's stages back to back).
   */
  private static final NoiseModel CLUSTERED =
      MODEL.withShortExcursions(
          List.of(
              new NoiseModel.ShortExcursion(Duration.ofMinutes(2), -0.36),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(5), -0.33),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.28),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(20), -0.24),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(30), -0.20)));

  @Test
  void aClusterNoDeeperThanTheHistorysOwnIsWaitedOutAndADropPagesByThirtyMinutes() {
    // Sixteen minutes 18 % down (over the backstop's 20 % line), then healthy: past the 10
    // minutes a record of short excursions holds, so the tests page it (this was the rule before
    // the record of clusters); with a history whose clusters went as deep for as long, they wait.
    // The same depth sustained is paged at the first step past the longest record: 32 minutes
    // after its change point at the latest (steps 60 + 16).
    waitedOutWithClustersAndPagedBetween(0.82, 70, 76);
    // A history whose longer windows went no deeper than the floor keeps nothing past 10 minutes:
    // twenty minutes 17 % down page as they did (its 20-minute line, 0.9 × 0.91 − 1 = −18.1 %,
    // would hold them: the wander's longer windows would make every such drop wait).
    NoiseModel shallow =
        MODEL.withShortExcursions(
            List.of(
                new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.28),
                new NoiseModel.ShortExcursion(Duration.ofMinutes(20), -0.09),
                new NoiseModel.ShortExcursion(Duration.ofMinutes(30), -0.07)));
    java.util.function.LongFunction<Double> shallower = i -> i > 60 && i <= 70 ? 0.6 * 0.83 : 0.6;
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(firstBreach(shallow, shallower, 240, seed)).as("seed %d", seed).isNotNull();
    }
  }

  @Test
  void theBackstopWaitsOutARunNoDeeperThanTheHistorysClustersAndPagesByThirtyMinutes() {
    // Sixteen minutes 28 % down, then healthy: under the backstop's line (−20 %) for more than its
    // 10 minutes. With a record of such clusters (20 minutes at −24 %: at the floor, −31.6 %)
    // the tests wait, and so does the backstop (before it did not: it paged this run at 10
    // minutes). Without a record past 10 minutes it pages, as before.
    // The same depth sustained pages at the first step past the longest record, 32 minutes
    // after its change point at the latest, by whichever of the tests and the backstop is first.
    waitedOutWithClustersAndPagedBetween(0.72, 66, 76);
    // Deeper than the clusters went (−45 %, past every length's line at the floor): paged within
    // the backstop's 10 minutes.
    java.util.function.LongFunction<Double> deep = i -> i <= 60 ? 0.6 : 0.6 * 0.55;
    for (long seed = 1; seed <= 5; seed++) {
      String paged = firstBreach(CLUSTERED, deep, 240, seed);
      assertThat(paged).as("seed %d", seed).isNotNull();
      assertThat(stepOf(paged)).as(paged).isLessThanOrEqualTo(66L);
    }
  }

  /**
   * Sixteen minutes at {@code ratio} × the level from step 61, then healthy, five seeds: paged with
   * {@link #SPIKY}'s record (nothing past 10 minutes), waited out with {@link #CLUSTERED}'s; the
   * same ratio sustained from step 61 paged with {@link #CLUSTERED}'s between steps {@code from}
   * and {@code to}.
   */
  private static void waitedOutWithClustersAndPagedBetween(double ratio, long from, long to) {
    java.util.function.LongFunction<Double> run = i -> i > 60 && i <= 68 ? 0.6 * ratio : 0.6;
    java.util.function.LongFunction<Double> drop = i -> i <= 60 ? 0.6 : 0.6 * ratio;
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(firstBreach(SPIKY, run, 240, seed)).as("seed %d", seed).isNotNull();
      assertThat(firstBreach(CLUSTERED, run, 240, seed)).as("seed %d", seed).isNull();
      String held = firstBreach(CLUSTERED, drop, 240, seed);
      assertThat(held).as("seed %d", seed).isNotNull();
      assertThat(stepOf(held)).as(held).isBetween(from, to);
    }
  }

  /**
   * A history with runs of an hour past the backstop's line (a job, a backfill): its windows of 10,
   * 20, 30 and 60 minutes went 30, 28, 27 and 24 % under the level once per interval.
   */
  private static final NoiseModel RUNS =
      MODEL.withShortExcursions(
          List.of(
              new NoiseModel.ShortExcursion(Duration.ofMinutes(2), -0.36),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(5), -0.33),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.30),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(20), -0.28),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(30), -0.27),
              new NoiseModel.ShortExcursion(Duration.ofMinutes(60), -0.24)));

  @Test
  void aRunNoDeeperThanTheHistorysOwnHoursIsWaitedOutAndADeeperDropPagesByHalfAnHour() {
    NoiseModel noHour =
        MODEL.withShortExcursions(
            RUNS.shortExcursions().subList(0, RUNS.shortExcursions().size() - 1));
    // 44 minutes 22 % down (steps of 2 minutes), then healthy: past the 30 minutes a record of
    // clusters holds, so it pages without the hour's record; the history's hours went as deep.
    java.util.function.LongFunction<Double> run = i -> i > 60 && i <= 82 ? 0.6 * 0.78 : 0.6;
    // Sustained 30 %: deeper than the history's hours went, so past half an hour the record of runs
    // holds nothing (composed with the floor it would hold it the hour: (0.9)(0.76) − 1 = −31.6 %).
    java.util.function.LongFunction<Double> deep = i -> i <= 60 ? 0.6 : 0.6 * 0.7;
    // Sustained 22 %: as deep as the history's hours, held to the hour, paged just past it.
    java.util.function.LongFunction<Double> shallow = i -> i <= 60 ? 0.6 : 0.6 * 0.78;
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(firstBreach(noHour, run, 240, seed)).as("seed %d, no hour", seed).isNotNull();
      assertThat(firstBreach(RUNS, run, 240, seed)).as("seed %d", seed).isNull();
      String paged = firstBreach(RUNS, deep, 240, seed);
      assertThat(paged).as("seed %d", seed).isNotNull();
      assertThat(stepOf(paged)).as(paged).isBetween(66L, 77L);
      String held = firstBreach(RUNS, shallow, 240, seed);
      assertThat(held).as("seed %d", seed).isNotNull();
      assertThat(stepOf(held)).as(held).isBetween(88L, 92L);
    }
  }

  /** The step of a breach ("step: reason", {@link #firstBreach}). */
  private static long stepOf(String breach) {
    return Long.parseLong(breach.substring(0, breach.indexOf(':')));
  }

  @Test
  void aSuddenDipAboveTheFloorNeverPages() {
    // −7 % at a 10 % floor for three days after two healthy hours, five seeds.
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(firstBreach(SLOW_WANDER, i -> i <= 60 ? 0.6 : 0.6 * 0.93, 2220, seed))
          .as("seed %d", seed)
          .isNull();
    }
  }

  @Test
  void aSuddenDropThatLeavesTheLevelAboveTheLearnedFloorDoesNotPage() {
    // The mix had lifted acceptance 5 %; a 12 % drop from there is at least the floor below the
    // hour before, but the level (0.554) stays above the learned floor (0.540): not a change.
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(firstBreach(SLOW_WANDER, i -> i <= 60 ? 0.63 : 0.63 * 0.88, 240, seed))
          .as("seed %d", seed)
          .isNull();
    }
  }

  @Test
  void aLaterFallOfTheMixOnALevelExactlyAtTheFloorIsNotASuddenDrop() {
    // Two healthy hours, a step to exactly the learned floor (0.54: a fall of exactly the floor
    // from the hour before, the sudden test's null), three hours there, then a healthy fall of
    // the mix of 5 %. Against the hour before that is a 5 % fall, not a sudden drop. (At this
    // traffic the reference follows the level either way; on the held-out families, where it
    // did not, DropTestTest's stale reference and the bench's floor pages tell that story.)
    for (long seed = 1; seed <= 5; seed++) {
      String breach =
          firstBreach(SLOW_WANDER, i -> i <= 60 ? 0.6 : i <= 150 ? 0.54 : 0.54 * 0.95, 240, seed);
      assertThat(breach == null ? "" : breach).as("seed %d", seed).doesNotContain("a sudden drop");
    }
  }

  @Test
  void aSlowDriftIsFollowedByTheReferenceAndIsNotSudden() {
    // −15 % over two hours, then held for six: the hour before follows it, so never a floor
    // below it; the main test (slow with this wander) and the backstop (−20 %) stay quiet too.
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(
              firstBreach(
                  SLOW_WANDER,
                  i -> 0.6 * (1 - 0.15 * Math.min(1, Math.max(0, (i - 60) / 60.0))),
                  300,
                  seed))
          .as("seed %d", seed)
          .isNull();
    }
  }

  @Test
  void theTestIsDesignedAtTheFloorAndItsAlternativesLieBelowIt() {
    DropTest t = RULE.test(STEP);
    // floor·(1 − s) = L·(1 − k·r) for k = 1.5, 2, 3, 4 and r = 0.1.
    assertThat(t.shifts()).hasSize(4);
    assertThat(t.shifts().get(0)).isCloseTo(1 - 0.85 / 0.9, within(1e-12));
    assertThat(t.shifts().get(1)).isCloseTo(1 - 0.80 / 0.9, within(1e-12));
    assertThat(t.shifts().get(2)).isCloseTo(1 - 0.70 / 0.9, within(1e-12));
    assertThat(t.shifts().get(3)).isCloseTo(1 - 0.60 / 0.9, within(1e-12));
    assertThat(t.recovery()).isEqualTo(DropTest.Recovery.ABOVE_CLEAR);
  }
}
