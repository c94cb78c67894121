package dev.specwatch.alerting;

import dev.specwatch.detect.DropTest;
import dev.specwatch.detect.LocalReference;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.detect.ShortExcursions;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.signals.Increments;
import dev.specwatch.signals.RecipeSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Learned change detection ({@code thresholds.change}): the acceptance rate of each evaluation
 * step's counter increments against the recipe's learned normal. {@code min_relative_drop} r is a
 * floor, not a hint: the test's null hypothesis is the composite "the level is at least the floor
 * L·(1 − r)", tested at its least favourable point, the floor itself, against drops of 1.5, 2, 3
 * and 4 × r below the learned level L, by a bank of CUSUMs calibrated to one false alarm per {@code
 * false_alarm_interval} at the floor ({@link DropTest}); a sustained level above the floor (a −6 %
 * excursion at a 10 % floor) drifts the statistics down and never pages. An excursion no deeper
 * than the learned history's own excursions as long would be at the floor (up to 10 minutes, or 30
 * where the history's clusters went under the floor) does not page yet, by the tests or the
 * backstop ({@link NoiseModel#withinShortExcursions}). Fires while the drop is sustained; clears
 * with evidence the level is back above L·(1 − r/2), or once the window's acceptance held above
 * that line for {@link #CLEAR_FOR}. docs/DETECTION.md.
 */
public record ChangeRule(Policy.Change change, Severity severity) implements Rule {
  @Override
  public dev.specwatch.model.RuleName ruleName() {
    return dev.specwatch.model.RuleName.CHANGE;
  }

  @Override
  public Severity severity(RecipeSnapshot snapshot) {
    return severity;
  }

  /**
   * The backstop's line, as a multiple of {@code min_relative_drop} below the learned level (0.20
   * below at a 10 % floor), and how long the window's acceptance must stay under it (the step's own
   * acceptance under it too when the time is up: the drop is still there): a drop that large pages
   * within minutes even where the learned wander makes the statistics slow (a young recipe,
   * hours-long correlations), unless the history's own runs as long went as deep (a record of
   * clusters: then up to 30 minutes, and up to an hour where the history's runs that long went
   * under this line too). docs/DETECTION.md, "The backstop".
   */
  static final double GROSS = ShortExcursions.GROSS;

  static final Duration GROSS_FOR = Duration.ofMinutes(10);

  /**
   * How long the window's acceptance must stay back at or above the clear line, L·(1 − r/2), at
   * every step with drafts, for an alert to resolve without waiting for the recovery statistics: a
   * run as long as the record of clusters' longest length (the record of runs, an hour, came later
   * and did not move it). The statistics are calibrated to the false-alarm interval like a page,
   * and on a model with a wide learned wander they took hours after a drop had ended (a page then
   * says "regressed" for hours, and a new drop raises no page of its own). docs/DETECTION.md,
   * "Recovery by a run".
   */
  public static final Duration CLEAR_FOR = Duration.ofMinutes(30);

  /**
   * Drops below the learned level the bank tests for, as multiples of {@code min_relative_drop}.
   */
  static final double[] ALTERNATIVES = {1.5, 2, 3, 4};

  /**
   * The test design for evaluation steps of {@code step}: shifts relative to the floor, so that
   * floor·(1 − s) = L·(1 − k·r) for each k of {@link #ALTERNATIVES} (alternatives below 10 % of the
   * level are left out).
   */
  DropTest test(Duration step) {
    double r = change.minRelativeDrop();
    List<Double> shifts = new java.util.ArrayList<>();
    for (double k : ALTERNATIVES) {
      double below = 1 - k * r;
      if (below >= 0.1) {
        shifts.add(1 - below / (1 - r));
      }
    }
    if (shifts.isEmpty()) {
      shifts.add(1 - 0.1 / (1 - r));
    }
    return new DropTest(
        shifts, DropTest.steps(change.falseAlarmInterval(), step), DropTest.Recovery.ABOVE_CLEAR);
  }

  @Override
  public Judged judge(RecipeSnapshot s, Context c) {
    Optional<Verdict> none = Verdict.withoutEvidence(s);
    if (none.isPresent()) {
      return new Judged(none.get(), c.prior());
    }
    if (c.model() == null || c.model().model() == null) {
      String why = c.model() == null ? "learning: not learned yet" : c.model().status();
      return new Judged(Verdict.unknown(why), c.prior());
    }
    Increments inc = s.increments().orElse(null);
    if (inc == null || inc.draftTokens() == null || inc.acceptedTokens() == null) {
      return new Judged(Verdict.unknown("no step increments"), c.prior());
    }
    NoiseModel m = c.model().model();
    DropTest test = test(inc.step());
    double r = change.minRelativeDrop();
    double reference = m.levelAt(c.at());
    // The composite null "level >= floor" at its least favourable point; recovery above halfway.
    double floor = reference * (1 - r);
    double clear = reference * (1 - r / 2);
    SequentialTests.Thresholds h =
        SequentialTests.thresholds(test, m, m.level() * (1 - r), m.level() * (1 - r / 2));
    DropTest.State prior =
        c.prior() == null ? DropTest.State.initial(test.shifts().size()) : c.prior();
    DropTest.State next =
        test.step(
            prior,
            m,
            floor,
            clear,
            h.drop(),
            h.recover(),
            c.at(),
            inc.acceptedTokens(),
            inc.draftTokens());
    // Recovery by a run: the window's acceptance back at or above the clear line at every step
    // with drafts for CLEAR_FOR resolves the alert, whatever the recovery statistics say yet.
    Double window = s.signals().acceptanceRate();
    String backFor = "";
    if (prior.alarmed() && next.alarmed()) {
      // A step without drafts leaves the run as it was; one under the line ends it.
      Instant back = prior.clearSince();
      if (inc.draftTokens() > 0) {
        if (window == null || !(window >= clear)) {
          back = null;
        } else if (back == null) {
          back = c.at();
        }
      }
      if (back != null && Duration.between(back, c.at()).compareTo(CLEAR_FOR) >= 0) {
        next = DropTest.State.initial(test.shifts().size());
        backFor =
            String.format(
                Locale.ROOT,
                "; the window at or above %.3f for %s",
                clear,
                dev.specwatch.model.Durations.format(Duration.between(back, c.at())));
      } else {
        next = next.clearSince(back);
      }
    }
    // An excursion no deeper than the history's own short ones would be at the floor proves
    // nothing yet: the alarm waits (the statistics are kept up to their thresholds; the next step
    // decides again).
    if (!prior.alarmed()
        && next.alarmed()
        && withinShortExcursions(
            m,
            next.since(),
            c.at(),
            inc.step(),
            next.sumSuccesses(),
            next.sumExpected() / (1 - r))) {
      next = next.held(h.drop());
    }
    // Like the statistics, the backstop's run and the sudden-drop test do not survive an hour
    // without traffic.
    boolean stale =
        prior.last() != null
            && Duration.between(prior.last(), c.at()).compareTo(DropTest.EVIDENCE_EXPIRES) > 0;
    String how = "";
    // A step without drafts leaves the prior state, sudden test included, as it was.
    if (!next.alarmed() && inc.draftTokens() > 0) {
      // It starts over after an hour without traffic, and when its reference took no step for an
      // hour (LocalReference#stale).
      LocalReference local = prior.local();
      boolean restart = stale || (local != null && local.stale(c.at()));
      Sudden sudden = sudden(test, m, restart ? null : local, c.at(), reference, inc, r);
      next = next.local(sudden.local());
      if (sudden.alarm() != null) {
        DropTest.State t = sudden.alarm();
        how = "a sudden drop: at least the floor below the hour before it; ";
        next =
            next.alarmedBy(t.since(), c.at(), t.sumSuccesses(), t.sumTrials(), sudden.floorSum());
      }
    }
    // The backstop: a gross drop (the window's acceptance under L·(1 − 2r)) held for GROSS_FOR
    // pages as the static line a user would draw there would, against the learned level by hour,
    // if it is still there: the step's own acceptance is under the line too. The window lags the
    // steps by up to its length, so its run outlasts the excursion under it by minutes; without
    // the step, a 9-minute excursion that had ended paged on the window's tail of it.
    double line = reference * (1 - GROSS * r);
    boolean stillUnder = inc.draftTokens() > 0 && inc.acceptedTokens() / inc.draftTokens() < line;
    Instant priorGross = stale ? null : prior.grossSince();
    if (!next.alarmed()) {
      Instant under =
          window != null && window < line ? (priorGross == null ? c.at() : priorGross) : null;
      next = next.grossSince(under);
      // Like the tests' alarms, it waits while the run is no deeper than the history's own
      // excursions as long would be at the floor (a record of clusters: where the history's
      // windows of 10 to 30 minutes went under the line, a run under it that long proves
      // nothing yet); the window's depth, of its last minutes, stands for the run's.
      Duration run = under == null ? null : Duration.between(under, c.at());
      if (run != null
          && stillUnder
          && run.compareTo(GROSS_FOR) >= 0
          && !withinShortExcursions(m, under, c.at(), inc.step(), window, reference)) {
        how =
            "a gross drop: the window's acceptance under "
                + Math.round(GROSS * r * 100)
                + " % below its learned level for "
                + dev.specwatch.model.Durations.format(run)
                + "; ";
        next =
            next.alarmedBy(
                under, c.at(), inc.acceptedTokens(), inc.draftTokens(), floor * inc.draftTokens());
      }
    }
    String design =
        how
            + "sequential test, at most one false alarm per "
            + Verdict.days(change.falseAlarmInterval());
    if (next.alarmed()) {
      double observed = next.observed();
      // The test accumulates the floor as its reference: the learned level is floor / (1 - r).
      double expected = next.expected() / (1 - r);
      return new Judged(
          Verdict.breached(
              observed,
              expected * (1 - r),
              String.format(
                  Locale.ROOT,
                  "change: acceptance %.3f since %s against its learned %.3f (%+.1f %%, below the"
                      + " %.0f %% floor; %s)",
                  observed,
                  SequentialTests.time(next.since()),
                  expected,
                  (observed / expected - 1) * 100,
                  r * 100,
                  design)),
          next);
    }
    double now = inc.draftTokens() > 0 ? inc.acceptedTokens() / inc.draftTokens() : reference;
    String why = backFor;
    return new Judged(
        Verdict.clear(
            now,
            floor,
            () ->
                String.format(
                    Locale.ROOT,
                    "acceptance back near its learned level %.3f (last step %.3f%s)",
                    reference,
                    now,
                    why)),
        next);
  }

  /**
   * Whether the excursion since {@code since} (its first step's end), {@code successes} accepted
   * where the learned level expected {@code learned}, is no deeper than the history's own short
   * excursions would be with the level at the floor ({@link NoiseModel#withinShortExcursions}): the
   * tests do not page on it yet. docs/DETECTION.md, "Short excursions".
   */
  private boolean withinShortExcursions(
      NoiseModel m, Instant since, Instant at, Duration step, double successes, double learned) {
    if (since == null || !(learned > 0)) {
      return false;
    }
    return m.withinShortExcursions(
        Duration.between(since, at).plus(step), successes / learned - 1, change.minRelativeDrop());
  }

  /**
   * The sudden-drop test after one step, and its alarm when it has one.
   *
   * @param local the test and its reference, or null to start them
   * @param alarm the test's state when it alarmed and the level since its change point is below the
   *     learned floor too (so the alert means what every {@code change} alert means), else null
   * @param floorSum the learned floor × trials over the alarm's steps (the alert's expectation)
   */
  record Sudden(LocalReference local, DropTest.State alarm, double floorSum) {}

  /**
   * The test of a sudden drop (docs/DETECTION.md, "Sudden drops"): the same bank as the main test,
   * designed at the floor below the level of the last hour (an exponentially weighted mean of what
   * was observed, against the learned level by hour) instead of below the learned level, with the
   * variance of steps against the recent past ({@link NoiseModel#local()}): a wander that lasts
   * hours moves the reference along and is not evidence, where it slows the main test. It pages
   * only if the level since its change point is below the learned floor too.
   */
  Sudden sudden(
      DropTest test,
      NoiseModel m,
      LocalReference prior,
      Instant at,
      double learned,
      Increments inc,
      double r) {
    LocalReference local = prior == null ? LocalReference.start(test.shifts().size()) : prior;
    double accepted = inc.acceptedTokens();
    double drafted = inc.draftTokens();
    if (!local.ready()) {
      return new Sudden(local.observe(at, accepted, drafted, learned), null, 0);
    }
    double ratio = local.ratio();
    NoiseModel lm = m.local();
    SequentialTests.Thresholds h =
        SequentialTests.thresholds(test, lm, m.level() * (1 - r), m.level() * (1 - r / 2));
    double floor = ratio * learned * (1 - r);
    DropTest.State t =
        test.step(
            local.test(),
            lm,
            floor,
            ratio * learned * (1 - r / 2),
            h.drop(),
            h.recover(),
            at,
            accepted,
            drafted);
    if (t.since() == null) {
      // Not in an excursion: the step is healthy evidence of the recent level.
      return new Sudden(local.test(t).observe(at, accepted, drafted, learned), null, 0);
    }
    // In an excursion the reference is frozen (ratio is constant over it), so the learned level
    // over the excursion's steps is what the test accumulated, divided by ratio × (1 − r).
    double learnedFloorSum = t.sumExpected() / ratio;
    if (t.alarmed() && t.observed() * t.sumTrials() <= learnedFloorSum) {
      if (!withinShortExcursions(
          m, t.since(), at, inc.step(), t.sumSuccesses(), learnedFloorSum / (1 - r))) {
        return new Sudden(null, t, learnedFloorSum);
      }
      return new Sudden(local.test(t.held(h.drop())), null, 0);
    }
    return new Sudden(local.test(t.alarmed() ? t.disarmed() : t), null, 0);
  }
}
