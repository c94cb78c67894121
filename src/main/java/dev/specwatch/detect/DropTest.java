package dev.specwatch.detect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A sequential test that a proportion dropped below a reference, and later that it came back: a
 * bank of one-sided Gaussian log-likelihood-ratio CUSUMs (Page 1954), one per relative shift, on
 * the per-step proportion (successes / trials of one evaluation step).
 *
 * <p>Drop: for each shift r, H0 "level = ref" against H1 "level = ref·(1−r)"; the alarm goes off
 * when any statistic exceeds its threshold. Several shifts make a large drop fast to detect without
 * giving up sensitivity to the smallest one (Lorden's multi-CUSUM); the smallest shift's threshold
 * is calibrated to {@code 2 × arlSteps} and each other one to {@code 2 × (shifts − 1) × arlSteps},
 * so the bank as a whole keeps the false-alarm design (union bound, {@link #budget}). No single
 * step alarms or recovers: a step's weight is capped ({@link CusumStep#STEP_CAP}).
 *
 * <p>Recovery, once alarmed ({@link Recovery}): TO_REFERENCE tests "level = ref·(1−r_min)" against
 * "level = ref"; ABOVE_CLEAR tests, per shift r, "level = clear" against "level = clear·(1+r)"
 * (capped at halfway to 1). Recovered when any statistic exceeds its threshold.
 *
 * <p>Pure and deterministic: the state is a value persisted between evaluations (and replayed
 * identically). After more than an hour without traffic the test starts over.
 *
 * @param shifts relative drops tested, the smallest first (the design's minimum drop)
 * @param arlSteps designed mean number of steps between false alarms on healthy data
 */
public record DropTest(List<Double> shifts, double arlSteps, Recovery recovery) {

  /** How the test decides a dropped level is back. */
  public enum Recovery {
    /** Evidence the level is back at the reference rather than at ref·(1−smallest shift). */
    TO_REFERENCE,
    /**
     * Evidence the level is above {@code clear} (a threshold's clear level), one test per shift.
     */
    ABOVE_CLEAR
  }

  /** Evidence older than this gap without traffic is dropped: the test starts over. */
  public static final Duration EVIDENCE_EXPIRES = Duration.ofHours(1);

  public DropTest {
    shifts = List.copyOf(shifts);
    if (shifts.isEmpty() || shifts.stream().anyMatch(r -> !(r > 0 && r < 1)) || !(arlSteps > 1)) {
      throw new IllegalArgumentException("shifts in (0, 1) and arlSteps > 1");
    }
  }

  /** The state between steps. Statistics are in natural log-likelihood-ratio units. */
  public record State(
      List<Double> drop,
      List<Double> recover,
      boolean alarmed,
      Instant since,
      Instant alarmedAt,
      double sumSuccesses,
      double sumTrials,
      double sumExpected,
      Instant last,
      Instant grossSince,
      LocalReference local,
      Instant clearSince) {
    public State {
      drop = List.copyOf(drop);
      recover = List.copyOf(recover);
    }

    /** A state without a gross drop under way. */
    public State(
        List<Double> drop,
        List<Double> recover,
        boolean alarmed,
        Instant since,
        Instant alarmedAt,
        double sumSuccesses,
        double sumTrials,
        double sumExpected,
        Instant last) {
      this(
          drop,
          recover,
          alarmed,
          since,
          alarmedAt,
          sumSuccesses,
          sumTrials,
          sumExpected,
          last,
          null,
          null,
          null);
    }

    public static State initial(int shifts) {
      List<Double> zeros = Collections.nCopies(shifts, 0.0);
      return new State(zeros, zeros, false, null, null, 0, 0, 0, null);
    }

    /**
     * Since when a rule's own gross-drop check (the change rule's backstop) has seen the level
     * under its line without a break; null when it is not.
     */
    public State grossSince(Instant at) {
      return extras(at, local, clearSince);
    }

    /**
     * The same state, alarmed, with the start of its rule's own recovery run: since when the rule
     * has seen the level back above its clear line without a break (the change rule's, docs/
     * DETECTION.md, "Recovery by a run"); null when it is not.
     */
    public State clearSince(Instant at) {
      return extras(grossSince, local, at);
    }

    /** The same state with a rule's own local test ({@link Local}); null to restart it. */
    public State local(LocalReference l) {
      return extras(grossSince, l, clearSince);
    }

    private State extras(Instant gross, LocalReference l, Instant clear) {
      return new State(
          drop,
          recover,
          alarmed,
          since,
          alarmedAt,
          sumSuccesses,
          sumTrials,
          sumExpected,
          last,
          gross,
          l,
          clear);
    }

    /**
     * Alarmed at {@code at} by a rule's own check rather than by the statistics; the change point
     * is {@code from} unless the statistics' excursion began earlier. {@code successes}, {@code
     * trials} and {@code expected} seed the since-the-change sums when the statistics had none.
     */
    public State alarmedBy(
        Instant from, Instant at, double successes, double trials, double expected) {
      boolean fresh = since == null || sumTrials <= 0;
      return new State(
          drop,
          recover,
          true,
          fresh || from.isBefore(since) ? from : since,
          at,
          fresh ? successes : sumSuccesses,
          fresh ? trials : sumTrials,
          fresh ? expected : sumExpected,
          last,
          grossSince,
          local,
          null);
    }

    /**
     * Not alarmed, the statistics and the excursion kept: a rule's own check refused this alarm
     * (the next step decides again).
     */
    public State disarmed() {
      return disarmedWith(drop);
    }

    /**
     * {@link #disarmed}, each drop statistic held at most at its threshold in {@code dropH}: an
     * excursion the history's own short excursions explain (docs/DETECTION.md, "Short excursions")
     * keeps the evidence that it is one, but not the excess. Once the excursion outlasts the
     * record, a step that is still low pages at once, and a step back at the level brings the
     * statistics under their thresholds; without the hold, a storm's excess carried past the record
     * paged a step after it had ended.
     */
    public State held(List<Double> dropH) {
      List<Double> capped = new ArrayList<>(drop.size());
      for (int i = 0; i < drop.size(); i++) {
        capped.add(Math.min(drop.get(i), dropH.get(i)));
      }
      return disarmedWith(capped);
    }

    private State disarmedWith(List<Double> statistics) {
      return new State(
          statistics,
          recover,
          false,
          since,
          null,
          sumSuccesses,
          sumTrials,
          sumExpected,
          last,
          grossSince,
          local,
          null);
    }

    /**
     * This state for a bank of {@code drops} drop and {@code recovers} recovery statistics: itself
     * when it has them, else (a state persisted by a release with another bank) its statistics
     * start over at 0 and everything else is kept, an alarm included: an upgrade loses no alert,
     * only the evidence gathered so far.
     */
    public State sized(int drops, int recovers) {
      if (drop.size() == drops && recover.size() == recovers) {
        return this;
      }
      return new State(
          Collections.nCopies(drops, 0.0),
          Collections.nCopies(recovers, 0.0),
          alarmed,
          alarmed ? since : null,
          alarmedAt,
          alarmed ? sumSuccesses : 0,
          alarmed ? sumTrials : 0,
          alarmed ? sumExpected : 0,
          last,
          grossSince,
          local,
          alarmed ? clearSince : null);
    }

    /** The observed level since the change point, or NaN. */
    public double observed() {
      return sumTrials > 0 ? sumSuccesses / sumTrials : Double.NaN;
    }

    /** The level expected since the change point (trial-weighted reference), or NaN. */
    public double expected() {
      return sumTrials > 0 ? sumExpected / sumTrials : Double.NaN;
    }
  }

  private CusumStep dropPair(int i, double reference) {
    return new CusumStep(reference, reference * (1 - shifts.get(i)));
  }

  private CusumStep recoverPair(int i, double reference, double clear) {
    if (recovery == Recovery.TO_REFERENCE) {
      return new CusumStep(reference * (1 - shifts.get(0)), reference);
    }
    double alt = Math.min(clear * (1 + shifts.get(i)), (1 + clear) / 2);
    return new CusumStep(clear, alt);
  }

  private int recoverTests() {
    return recovery == Recovery.TO_REFERENCE ? 1 : shifts.size();
  }

  /**
   * Test {@code i}'s designed mean steps between false alarms, as a multiple of the bank's {@code
   * arlSteps}: the smallest shift's test (the design's minimum drop, the one every drop just past
   * it rests on) has half of the bank's false-alarm budget, the others share the other half. The
   * rates add up to the bank's (union bound: 1/2 + (n − 1) · 1/(2(n − 1)) = 1).
   */
  static double budget(int i, int n) {
    return n == 1 ? 1 : i == 0 ? 2 : 2.0 * (n - 1);
  }

  /** The drop thresholds at the model's reference traffic, one per shift. */
  public List<Double> dropThresholds(NoiseModel m, double reference) {
    List<Double> h = new ArrayList<>();
    for (int i = 0; i < shifts.size(); i++) {
      h.add(
          Calibration.threshold(
              arlSteps * budget(i, shifts.size()),
              dropPair(i, reference).information(m, m.referenceTrials())));
    }
    return h;
  }

  /** The recovery thresholds, calibrated the same way. */
  public List<Double> recoverThresholds(NoiseModel m, double reference, double clear) {
    List<Double> h = new ArrayList<>();
    int n = recoverTests();
    for (int i = 0; i < n; i++) {
      h.add(
          Calibration.threshold(
              arlSteps * n, recoverPair(i, reference, clear).information(m, m.referenceTrials())));
    }
    return h;
  }

  /**
   * Advances the test by one step with {@code successes} of {@code trials} at {@code at}. {@code
   * reference} is the healthy level (the learned level, or a threshold), {@code clear} the level
   * recovery tests against (ABOVE_CLEAR only). Steps without trials change nothing.
   */
  public State step(
      State s,
      NoiseModel m,
      double reference,
      double clear,
      List<Double> dropH,
      List<Double> recoverH,
      Instant at,
      double successes,
      double trials) {
    if (!(trials > 0)) {
      return s;
    }
    s = s.sized(shifts.size(), recoverTests());
    if (s.last() != null && Duration.between(s.last(), at).compareTo(EVIDENCE_EXPIRES) > 0) {
      // After a long gap without traffic (a quiet night) the old evidence is stale: start over,
      // as the engine resolves the alert after the same hour without a verdict.
      s = State.initial(shifts.size());
    }
    double y = successes / trials;
    if (!s.alarmed()) {
      List<Double> drop = new ArrayList<>(shifts.size());
      boolean alarm = false;
      for (int i = 0; i < shifts.size(); i++) {
        double v =
            CusumStep.advance(
                s.drop().get(i), dropPair(i, reference).llr(y, m, trials), dropH.get(i));
        drop.add(v);
        alarm |= v > dropH.get(i);
      }
      // The primary (smallest-shift) statistic's last departure from 0 estimates the change point.
      boolean excursion = drop.get(0) > 0 || alarm;
      Instant since = excursion ? (s.since() == null ? at : s.since()) : null;
      boolean fresh = s.since() == null;
      double sx = excursion ? (fresh ? 0 : s.sumSuccesses()) + successes : 0;
      double sn = excursion ? (fresh ? 0 : s.sumTrials()) + trials : 0;
      double se = excursion ? (fresh ? 0 : s.sumExpected()) + reference * trials : 0;
      List<Double> recover = Collections.nCopies(recoverTests(), 0.0);
      return new State(drop, recover, alarm, since, alarm ? at : null, sx, sn, se, at);
    }
    List<Double> recover = new ArrayList<>(recoverTests());
    boolean back = false;
    for (int i = 0; i < recoverTests(); i++) {
      double v =
          CusumStep.advance(
              s.recover().get(i),
              recoverPair(i, reference, clear).llr(y, m, trials),
              recoverH.get(i));
      recover.add(v);
      back |= v > recoverH.get(i);
    }
    if (back) {
      return State.initial(shifts.size());
    }
    return new State(
        s.drop(),
        recover,
        true,
        s.since(),
        s.alarmedAt(),
        s.sumSuccesses() + successes,
        s.sumTrials() + trials,
        s.sumExpected() + reference * trials,
        at);
  }

  /** The designed mean time between false alarms as a number of steps of {@code step}. */
  public static double steps(Duration falseAlarmInterval, Duration step) {
    return Math.max(2, (double) falseAlarmInterval.toMillis() / step.toMillis());
  }
}
