package dev.specwatch.bench;

import dev.specwatch.alerting.Learner;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.alerting.Replayer;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.testing.HistoryGenerator;
import dev.specwatch.testing.HistoryGenerator.Drop;
import dev.specwatch.testing.HistoryGenerator.Model;
import dev.specwatch.testing.HistoryGenerator.Noise;
import dev.specwatch.testing.HistoryGenerator.Profile;
import dev.specwatch.testing.PrometheusServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * `make heldout-bench`: the learned {@code change} rule and the static Prometheus rule on noise
 * families the detector was not designed on (docs/DETECTION.md, "Held-out families"), reported
 * once, as they come out; the design was decided on DetectionBench's families.
 *
 * <p>Twenty-six families, each beyond the learner's model (level by hour, overdispersion, short
 * wander): long-memory wander (three AR(1) processes at 1 h, 6 h and 2 d), regime switching (a
 * batch job at -5 % for hours, a new client at +3 %), and a weekly pattern with a slow downward
 * trend and heavy-tailed (Student-t, 3 degrees of freedom) bursts; since 2026-12-04 (issue 40, part
 * 5) also a day-of-week by hour interaction (a weekday-only tenant 6 % lower from 09:00 to 18:00)
 * and bursts of one long-context client (4-8 % lower for 20-120 min, about three a day), written
 * before any further design change; since 2026-12-05 tenant churn over a 3.5-day cycle (four
 * tenants coming and going within hours, ±2-4 % each), written before the sudden-drop test was
 * widened, and batch jobs on a 100-minute cron (3-6 % lower for 25-40 min), written before an hour
 * test was tried (and dropped); then daily restarts onto builds ±2 % (counter resets, and a level
 * that steps at random times), written before the main test was widened by its excursions' tail,
 * and scrape gaps on four engines (a 90-minute wander under outages of 1 to 10 minutes, about 16 a
 * day), written before the bank gained an alternative at 3 x the floor, and quiet spells between
 * one team's jobs (traffic stopping for 5 to 45 minutes about five times a day; each job its own
 * mix), written before the learner counted holes of under an hour as history; since 2026-12-06
 * incompressible outputs from one client (10 to 30 % lower for 1 to 6 minutes, about twelve times a
 * day, over a 1-hour wander), written before the sudden-drop test's widening by its falls was
 * ablated; and rare-language requests lasting minutes (12 to 25 % lower for 30 s to 8 min, about
 * twenty a day, over a 3-hour wander), written before the change rule learned a record of its
 * history's short excursions, to judge it, and an agent's retry storms (clustered, ramped,
 * lognormal-deep excursions of minutes), written before that record became a return level; then a
 * code-review bot after merges (a sharp rise and an exponential tail, by the working week), written
 * before the record gained a 15-minute length (tried, not kept), and a scanning client's batches
 * (square, rough excursions of 3 to 9 minutes on a near-regular schedule), written before the
 * record was kept at more lengths (tried, not kept), and a tutoring app's class periods (scheduled,
 * stacked excursions within an 8-hour school day), written before a history of under two days was
 * cut into shorter periods for the record (tried, not kept); then a load-testing team's staircases
 * (weekday afternoons), written before the backstop asked that a drop still be there, a consumer
 * app's weekends (bursts that overlap, two days in seven), written before the record looked back a
 * week whatever the learned history, and a document pipeline's ingestion sessions (ramped, jittered
 * excursions of 12 to 30 minutes at any hour), written before the record gained lengths of 20 and
 * 30 minutes (a record of clusters), and a nightly evaluation harness (rare runs of 10 to 25
 * minutes, 18 to 35 % deep), written before the backstop was held on that record; a coding
 * assistant indexing new repositories, a client working the family's night and a support desk's
 * macro hours, an on-call team pasting logs during incidents and a partner's overnight sweeps, and
 * a data team's backfills in working hours ({@link #FAMILIES} says what each was written to judge);
 * a fine-tuning team's checkpoint evaluations and a legal team's contract reviews; none is held
 * back now ({@link #HELD_BACK}). {@code -Dbench.families=NAME,NAME} runs some, {@code
 * -Dbench.learn=7d} only the detector that learns from 7 days. Ten seeds each; per seed a healthy
 * history, a 4-hour dip of -7 % (under the 10 % floor: any page on it is false), a step of exactly
 * the floor (-10 %: the null's boundary, reported apart), steps of 15 % and 30 %, and a 15 % drift
 * over 2 h. Ten days at a 60 s scrape, about 10 drafts/s: the first seven are the learning history,
 * the change rule learns from the last 1, 3 or 7 of them.
 */
public final class HeldOutBench {
  /**
   * The scrape interval and the replay's step: 60 s and 2 minutes by default (the figures in
   * docs/DETECTION.md); {@code -Dbench.scrape=30s -Dbench.step=30s} replays at the daemon's own
   * evaluation interval, where the learner's blocks are 15 minutes instead of an hour.
   */
  static final Duration SCRAPE = DetectionBench.duration("bench.scrape", Duration.ofSeconds(60));

  static final Duration STEP = DetectionBench.duration("bench.step", Duration.ofMinutes(2));

  /**
   * The change rule's {@code for} (0 by default): {@code -Dbench.for=10m} measures what a user who
   * holds its pages for that long buys and pays (docs/DETECTION.md, "Minute-long spikes").
   */
  static final Duration FOR = DetectionBench.duration("bench.for", Duration.ZERO);

  /**
   * Where the seeds start: 7000 by default (the seeds every table in docs/DETECTION.md was measured
   * on, and the design was judged on); {@code -Dbench.seed=N} draws fresh histories (for the
   * done-when's "fresh seeds": a family's cases take seeds N + its place in {@link #FAMILIES} times
   * 60 onwards).
   */
  static final long SEED = Long.getLong("bench.seed", 7000L);

  /**
   * The change rule's {@code false_alarm_interval} (30 days by default): {@code
   * -Dbench.interval=90d} measures what a longer one buys.
   */
  static final Duration INTERVAL = DetectionBench.duration("bench.interval", Duration.ofDays(30));

  static final Duration WINDOW = Duration.ofMinutes(5);
  static final int SEEDS = 10;
  static final double LEVEL = 0.62;

  /** The profile under every family: about 10 drafts/s, the prompt mix swinging ±5 % a day. */
  static final Profile BASE =
      new Profile(
          "held-out",
          10,
          0.5,
          false,
          1,
          LEVEL,
          0.05,
          0,
          0.004,
          Duration.ofMinutes(5),
          2,
          1,
          0,
          0,
          0);

  /** A family: its noise on top of a profile ({@link #BASE} unless it says otherwise). */
  record Family(String name, Supplier<Noise> noise, Profile profile) {
    Family(String name, Supplier<Noise> noise) {
      this(name, noise, BASE);
    }
  }

  /** {@link #BASE} with engine restarts (counter resets) about once a day. */
  static final Profile RESTARTING = BASE.withRestartsPerWeek(7);

  /**
   * {@link #BASE} on four engines whose {@code /metrics} Prometheus misses about 16 times a day,
   * for 1 to 10 minutes each (every engine at once one time in five): the windows and increments
   * the daemon reads lose an engine, or everything, for minutes, and the first scrape after an
   * outage carries its counts.
   */
  static final Profile GAPPY = BASE.withGaps(4, 16);

  /**
   * {@link #BASE} with traffic stopping about five times a day for 5 to 45 minutes (one team's
   * deployment, between its jobs): the engine is scraped and its counters stand still, so the
   * learner's history has holes of up to an hour inside every day.
   */
  static final Profile QUIET = BASE.withPauses(5);

  static final List<Family> FAMILIES =
      List.of(
          new Family("long-memory wander", HeldOutBench::longMemory),
          new Family("regime switching", HeldOutBench::regimes),
          new Family("weekly, trend, heavy tails", HeldOutBench::weeklyTrendHeavy),
          // Added 2026-12-04 (issue 40, part 5), written before any further design change and
          // reported once as they came out.
          new Family("weekday business hours", HeldOutBench::weekdayHours),
          new Family("long-context bursts", HeldOutBench::longContextBursts),
          // Added 2026-12-05, written before the sudden-drop test was widened by the learned
          // history's falls (issue 40, part 4), to judge that change.
          new Family("tenant churn over a 3.5-day cycle", HeldOutBench::tenantChurn),
          // Added 2026-12-05, written before an hour test was tried (sums of an hour held to the
          // wander over an hour; issue 40, part 4: it changed nothing and was dropped), to judge
          // it.
          new Family("batch jobs on a 100-minute cron", HeldOutBench::cronBatches),
          // Added 2026-12-05, written before the main test's variance was widened by the tail of
          // the blocks' excursions below the learned level (issue 40, part 4), to judge that
          // change.
          new Family(
              "daily restarts onto builds ±2 %", HeldOutBench::buildsAndRestarts, RESTARTING),
          // Added 2026-12-05, written before a fourth alternative (3 x the floor) was added to the
          // bank of CUSUMs (issue 40, part 4: 30 % drops in at most 5 minutes), to judge it.
          new Family("scrape gaps on four engines", HeldOutBench::ninetyMinuteWander, GAPPY),
          // Added 2026-12-05, written before the learner counted holes of under an hour in its
          // history as history (a recipe learned from 1 day needed every 5-minute sample of it),
          // to judge that change.
          new Family("quiet spells between one team's jobs", HeldOutBench::teamJobs, QUIET),
          // Added 2026-12-06, written before the sudden-drop test's widening by the learned
          // history's falls was ablated (issue 40, part 4: does the floor still need it since
          // the reference restarts when stale?), to judge that change.
          new Family("incompressible outputs from one client", HeldOutBench::incompressible),
          // Added 2026-12-06, written before the change rule learned a record of its history's
          // short excursions (the eleventh family's false pages are minute-long spikes), to judge
          // that change; run before and after it.
          new Family("rare-language requests lasting minutes", HeldOutBench::rareLanguages),
          // Added 2026-12-06, written before the record of short excursions' second form (a
          // return level at the false-alarm interval instead of the deepest of a week, designed
          // after the twelfth family's first run), to judge that change; run before and after.
          new Family("an agent's retry storms", HeldOutBench::retryStorms),
          // Added 2026-12-06, written before the record of short excursions gained a 15-minute
          // length (the thirteenth family's remaining false pages are storms of 7 to 12 minutes,
          // longer than the record's 10), to judge that change; run before and after (and with
          // only the hold of statistics made with it: the 15 minutes bought nothing more, and were
          // not kept).
          new Family("a code-review bot after merges", HeldOutBench::reviewBot),
          // Added 2026-12-06, written before the record of short excursions was kept at more
          // lengths (the thirteenth family's pages at 6 to 8 minutes were deeper than the record
          // interpolated between 5 and 10), to judge that change; run before and after (it bought
          // nothing on this family or the thirteenth, and was not kept).
          new Family("a scanning client's batches", HeldOutBench::scanBatches),
          // Added 2026-12-06, written before the record of short excursions cut a history of under
          // two days into shorter periods (so a recipe learned from one day gets a fitted record,
          // not the deepest of four periods), to judge that change; run before and after (it
          // changed no figure of this family, the twelfth or the thirteenth, and was not kept).
          new Family("a tutoring app's class periods", HeldOutBench::classPeriods),
          // The seventeenth, written 2026-12-06 before the backstop asked that a drop still be
          // there (the fifteenth family's pages at the floor came from the backstop, its 5-minute
          // window lagging batches that had ended), to judge that change; run before and after.
          new Family("a load-testing team's staircases", HeldOutBench::loadTests),
          // The eighteenth, written 2026-12-06 before the record of short excursions looked back
          // at least a week whatever `learn` is (the seventeenth family's false pages with 3 and 1
          // days of learning came on afternoons whose load tests the learned days had not seen),
          // to judge that change; run before and after.
          new Family("a consumer app's weekends", HeldOutBench::weekends),
          // The nineteenth, written 2026-12-06 before the record of short excursions gained
          // lengths past 10 minutes (a record of clusters: the seventeenth and eighteenth
          // families' false pages and floor pages are excursions of 10 to 25 minutes, where
          // nothing is held), to judge that change; run before and after.
          new Family("a document pipeline's ingestion sessions", HeldOutBench::ingestion),
          // The twentieth, written 2026-12-06 before the backstop was held on the record of
          // clusters (the nineteenth family's false pages are the backstop's: sessions 20 % or
          // more deep for 10 minutes, no deeper than the history's own), to judge that change; run
          // before and after.
          new Family("a nightly evaluation harness", HeldOutBench::nightlyEvals),
          // The twenty-first, written 2026-12-06 before the record of short excursions set aside
          // only runs of blocks under the backstop's line longer than its longest length (the
          // twentieth family's false pages are runs deeper than the record, whose deepest were
          // set aside as incidents: any 15-minute block 20 % under), to judge that change; run
          // before and after.
          new Family("a coding assistant indexing new repositories", HeldOutBench::repoIndexing),
          // The twenty-second, written 2026-12-06 before the record of short excursions counts
          // windows of less than half the reference traffic (the twentieth family's false pages
          // left are runs at night, whose windows the record never sees: it counts only windows
          // with half the reference traffic), to judge that change; run before and after
          // (2026-12-07: "Quiet windows counted, tried").
          new Family("a client working the family's night", HeldOutBench::nightClient),
          // The twenty-third, written 2026-12-07 before the change rule's recovery counted a
          // window back above its clear line for half an hour (the twentieth and twenty-first
          // families' false pages stayed open for 2 to 9 hours after excursions of under 40
          // minutes), to judge that change with -Dbench.fixed=true; run before and after.
          new Family("a support desk's macro hours", HeldOutBench::macroHours),
          // The twenty-fourth, written 2026-12-07 before the record counts windows of less than
          // half the reference traffic in a way that leaves its fit's periods as they were (the
          // first try, "Quiet windows counted", held the night's excursions but let the night's
          // shallow periods into the fit, and a consumer app's weekends paged three times as
          // often), to judge that change; run before and after (2026-12-07: "Quiet windows
          // counted").
          new Family(
              "an on-call team pasting logs during incidents", HeldOutBench::onCallIncidents),
          // The twenty-fifth, written 2026-12-07 before the record fits its quiet periods'
          // deepest on their own (the twenty-second and twenty-fourth families' false pages left
          // after quiet windows counted came at night, deeper than any the week before had held:
          // the quiet windows' record is the deepest seen, not a return level), to judge that
          // change; run before and after (2026-12-07: "Quiet windows counted", not kept).
          new Family("a partner's overnight sweeps", HeldOutBench::overnightSweeps),
          // The twenty-sixth, written 2026-12-07 before the record of short excursions holds runs
          // past its 30 minutes (the twenty-first family's false pages are jobs longer than the
          // record's longest length, which the rule pages whatever its history held), to judge
          // that change; run before and after it (2026-12-07: "An hour's record, tried", not kept).
          new Family("a data team's backfills in working hours", HeldOutBench::backfills),
          // The twenty-seventh, written 2026-12-07 before the record of short excursions holds
          // runs of up to an hour where the history's hours went under the backstop's line (the
          // first try, gated at the floor, held 15 % drops for the hour on a family whose hours
          // only wander that deep), to judge that change; run before and after it (2026-12-07: "A
          // record of runs").
          new Family("a fine-tuning team's checkpoint evaluations", HeldOutBench::checkpointEvals),
          // The twenty-eighth, written 2026-12-07 before the record of runs past half an hour holds
          // an excursion only to the history's own depth, not composed with the floor (the
          // twenty-seventh family's 30 % drops waited the hour with the composed record), to judge
          // that change; run before and after it (2026-12-07: "A record of runs", kept).
          new Family("a legal team's contract reviews", HeldOutBench::contractReviews),
          // The twenty-ninth, written 2026-12-07 before the change rule's tests compare with the
          // history's mean by hour rather than its median (the floor pages of the excursion
          // families: a step of exactly the floor with the history's excursions on top is a mean
          // below the floor), to judge that change; run before and after it (2026-12-07: "The
          // floor from the mean, tried", not kept).
          new Family("a subtitling service's batches", HeldOutBench::subtitleBatches));

  /**
   * A subtitling service translating video batches with the deployment's model: every day of the
   * family's own clock between 07:00 and 23:00, batches arrive at Poisson times, 1.2 an hour, and
   * run side by side. A batch lasts a lognormal time (median 12 minutes, log-sd 0.6, kept within 4
   * to 45 minutes); its depth is 4 % plus 14 % times the square of a uniform draw (4 to 18 %, most
   * of them shallow), and it flickers: every 30 to 90 seconds (uniform) it takes 70 to 130 %
   * (uniform) of that depth. Batches that overlap add up, to at most 40 %. Under it a 3-hour wander
   * (AR(1), 0.9 % sd). Its own generator: many shallow runs most of the day, each one under the
   * floor only at its flickers' deepest, so that the day's mean sits below its median; between them
   * the normal level, so a page on one is false. A scratch run of 10 days at a 30 s step, three
   * seeds: 6 to 8 % of the time more than 10 % under; between 07:00 and 23:00 the mean 2.5 to 2.8 %
   * under, the median 0.5 to 0.7 %; 9 to 17 runs more than 3 % under for 30 minutes or more, up to
   * 2 for an hour; 35 to 41 % under at the deepest.
   */
  static Noise subtitleBatches() {
    List<double[]> batches = new ArrayList<>(); // {seconds left, depth, factor, seconds to flicker}
    FamilyClock clock = new FamilyClock(3 * 3600, 0.009);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      if (hour >= 7 && hour < 23 && r.nextDouble() < dt * 1.2 / 3600.0) {
        double minutes = 12 * Math.exp(0.6 * HistoryGenerator.gaussian(r));
        double u = r.nextDouble();
        batches.add(
            new double[] {Math.max(4, Math.min(45, minutes)) * 60, 0.04 + 0.14 * u * u, 1, 0});
      }
      double fall = 0;
      for (var it = batches.iterator(); it.hasNext(); ) {
        double[] b = it.next();
        b[3] -= dt;
        if (b[3] <= 0) {
          b[2] = 0.7 + 0.6 * r.nextDouble();
          b[3] = 30 + 60 * r.nextDouble();
        }
        fall += b[1] * b[2];
        b[0] -= dt;
        if (b[0] <= 0) {
          it.remove();
        }
      }
      return x - Math.min(0.4, fall);
    };
  }

  /**
   * A legal team reviewing contracts with the deployment's long-context model: on every day of the
   * family's own week, review sessions start at Poisson times between 08:00 and 20:00 of its clock,
   * 2.5 a day on average, one at a time. A session lasts 40 to 100 minutes (uniform); its depth is
   * uniform in 14 to 30 % (clauses, defined terms and citations the draft predicts badly), reached
   * over 2 to 8 minutes (uniform, linear), and it deepens by up to a further fifth of that as the
   * documents grow (linear over the session, the fifth uniform in 0 to 0.2); between documents,
   * every 6 to 15 minutes (uniform), it eases to half its depth for 1 minute. It ends within 2
   * minutes. Under it a 90-minute wander (AR(1), 0.7 % sd). Its own generator: deep runs of most of
   * an hour or more, at any hour of the working day, every day; the level between them is the
   * normal, so a page on one is false. A scratch run of 10 days at a 30 s step, three seeds: 8 to
   * 10 % of the time more than 10 % under; 17 to 22 runs more than 3 % under for 30 minutes or
   * more, 10 to 14 for an hour or more; 31 to 35 % under at the deepest.
   */
  static Noise contractReviews() {
    // {seconds into the session, its length (0: none), depth, onset (s), deepening, seconds to the
    // next document, seconds left easing}
    double[] v = {0, 0, 0, 0, 0, 0, 0};
    FamilyClock clock = new FamilyClock(5400, 0.007);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      if (v[1] == 0 && hour >= 8 && hour < 20 && r.nextDouble() < dt * 2.5 / (12 * 3600.0)) {
        v[0] = 0;
        v[1] = (40 + 60 * r.nextDouble()) * 60;
        v[2] = 0.14 + 0.16 * r.nextDouble();
        v[3] = (2 + 6 * r.nextDouble()) * 60;
        v[4] = 0.2 * r.nextDouble();
        v[5] = (6 + 9 * r.nextDouble()) * 60;
        v[6] = 0;
      }
      double fall = 0;
      if (v[1] > 0) {
        double depth = v[2] * (1 + v[4] * v[0] / v[1]);
        double shape = Math.min(1, v[0] / v[3]) * Math.min(1, Math.max(0, (v[1] - v[0]) / 120));
        v[5] -= dt;
        if (v[5] <= 0) {
          v[5] = (6 + 9 * r.nextDouble()) * 60;
          v[6] = 60;
        }
        double ease = v[6] > 0 ? 0.5 : 1;
        v[6] -= dt;
        fall = depth * shape * ease;
        v[0] += dt;
        if (v[0] >= v[1]) {
          v[1] = 0;
        }
      }
      return x - fall;
    };
  }

  /**
   * A fine-tuning team evaluating its checkpoints around the clock: a checkpoint lands after a gap
   * of at least an hour plus an exponential wait (mean 3 hours), day or night, and is evaluated on
   * 2 to 4 suites in turn (uniform), each 10 to 30 minutes (uniform) at its own depth (log-uniform,
   * 6 to 24 %: a code suite, a maths suite, long documents), reached within 2 minutes, with 1 to 3
   * minutes (uniform) between suites at the normal level. Under it a 4-hour wander (AR(1), 1.5 %
   * sd). Its own generator: runs of 25 minutes to two hours made of steps of different depths,
   * around the clock, between them the normal level, so a page on one is false. A scratch run of 10
   * days at a 30 s step, three seeds: 11 to 13 % of the time more than 10 % under (a quarter of the
   * time in a suite); 4 to 5 runs more than 3 % under for 30 minutes or more, 1 to 3 for an hour
   * (the pauses between suites mostly split them); 25 % under at the deepest.
   */
  static Noise checkpointEvals() {
    // {seconds to the next checkpoint, suites left after this one, seconds left in the suite,
    // seconds into it, its depth, seconds left in the pause after it}
    double[] c = {Double.NaN, 0, 0, 0, 0, 0};
    FamilyClock clock = new FamilyClock(4 * 3600, 0.015);
    return (t, dt, r) -> {
      double x =
          clock.wander(
              t,
              dt,
              r,
              () -> {
                c[0] = 3600 - 3 * 3600 * Math.log(1 - r.nextDouble());
              });
      double fall = 0;
      if (c[2] > 0) {
        fall = c[4] * Math.min(1, c[3] / 120);
        c[2] -= dt;
        c[3] += dt;
        if (c[2] <= 0) {
          c[5] = c[1] > 0 ? 60 + 120 * r.nextDouble() : 0;
        }
      } else if (c[5] > 0) {
        c[5] -= dt;
        if (c[5] <= 0) {
          c[1]--;
          suite(c, r);
        }
      } else if (c[1] > 0) {
        c[1]--;
        suite(c, r);
      } else {
        c[0] -= dt;
        if (c[0] <= 0) {
          c[0] = 3600 - 3 * 3600 * Math.log(1 - r.nextDouble());
          c[1] = 1 + r.nextInt(3);
          suite(c, r);
        }
      }
      return x - fall;
    };
  }

  /** The next suite of a checkpoint's evaluation: its length and depth. */
  private static void suite(double[] c, SplittableRandom r) {
    c[2] = (10 + 20 * r.nextDouble()) * 60;
    c[3] = 0;
    c[4] = 0.06 * Math.pow(4, r.nextDouble());
    c[5] = 0;
  }

  /**
   * A data team re-scoring old conversations in working hours: on the first five days of each of
   * the family's own weeks (counted from its start), between 09:00 and 18:00 of its clock, a
   * backfill starts at Poisson times, two a working day, unless one is running. It runs 25 to 90
   * minutes (lognormal, median 45, log-sd 0.3, clipped), working through chunks of files of 4 to 8
   * minutes each (uniform); a backfill is d deep (log-uniform, 8 to 25 %) and each chunk holds it
   * at d times a factor uniform in 0.5 to 1 (its own files), reached within 3 minutes at the start
   * and gone within a minute at the end. Under it a 2-hour wander (AR(1), 0.8 % sd). Its own
   * generator: excursions of most of an hour, at 4 to 25 %, in working hours only, longer than the
   * record's 30 minutes in most cases; the level between them is the normal, so a page on one is
   * false. A scratch run of 10 days, three seeds: 13 to 15 runs more than 3 % under for 30 minutes
   * or more, 2.5 to 3 % of the time more than 10 % under, 22 to 24 % under at the deepest.
   */
  static Noise backfills() {
    // {seconds run so far, length (s; 0: none running), depth, chunk factor, seconds left in the
    // chunk}
    double[] b = {0, 0, 0, 1, 0};
    FamilyClock clock = new FamilyClock(7200, 0.008);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      long day = Math.floorDiv(s, 86400);
      boolean working = Math.floorMod(day, 7) < 5 && hour >= 9 && hour < 18;
      if (b[1] == 0 && working && r.nextDouble() < dt * 2 / (9 * 3600.0)) {
        b[0] = 0;
        b[1] = Math.max(25, Math.min(90, 45 * Math.exp(0.3 * HistoryGenerator.gaussian(r)))) * 60;
        b[2] = 0.08 * Math.pow(25 / 8.0, r.nextDouble());
        b[4] = 0;
      }
      double fall = 0;
      if (b[1] > 0) {
        b[4] -= dt;
        if (b[4] <= 0) {
          b[3] = 0.5 + 0.5 * r.nextDouble();
          b[4] = (4 + 4 * r.nextDouble()) * 60;
        }
        double onset = Math.min(1, b[0] / 180);
        double end = Math.min(1, Math.max(0, (b[1] - b[0]) / 60));
        fall = b[2] * b[3] * Math.min(onset, end);
        b[0] += dt;
        if (b[0] >= b[1]) {
          b[1] = 0;
        }
      }
      return x - fall;
    };
  }

  /**
   * A research partner's parameter sweeps, run on about half the family's nights (each night a coin
   * toss): a sweep starts at an hour uniform in 20:00 to 02:00 of the family's own clock and runs 1
   * to 4 hours (uniform). It tries one configuration after another: each runs 3 to 12 minutes
   * (uniform), sending c drafts/s (lognormal, median 1.2, log-sd 0.5) that the draft accepts at a
   * ratio of the others' rate of 0.65 x exp(0.4 g), g standard normal, clipped to 0.1 to 1 (so most
   * are mild and a few deep, and a night's deepest varies from night to night), then the partner
   * reads the results for 10 to 40 minutes (uniform), sending nothing. A configuration's share of
   * the drafts is c over the profile's traffic at that hour (10 x (1 + 0.5 sin(2 pi (hour - 9) /
   * 24)) drafts/s, at most 0.6); acceptance falls by the share x (1 - ratio). Under it a 45-minute
   * wander (AR(1), 0.6 % sd). Its own generator: isolated excursions of minutes, in the evening's
   * busy hours and the night's quiet ones, whose depth has a tail past what one week shows; between
   * them the level is the normal, so a page on one is false. A scratch run of 10 days, three seeds:
   * 0.4 to 0.5 % of the time more than 10 % under; a night with a sweep goes 12 to 28 % under at
   * its deepest.
   */
  static Noise overnightSweeps() {
    // {the next day to draw a night for, sweep start (s), sweep end (s), a configuration running
    // (1) or the partner reading (0), seconds left in it, drafts/s, ratio}
    double[] w = {0, 0, 0, 0, 0, 0, 1};
    FamilyClock clock = new FamilyClock(2700, 0.006);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      long day = Math.floorDiv(s, 86400);
      if (day >= w[0] && hour >= 12) {
        // Noon of a new day (last night's sweep is over): whether tonight has a sweep, when it
        // starts and how long it runs.
        w[0] = day + 1;
        if (r.nextDouble() < 0.5) {
          double from = day * 86400.0 + (20 + 6 * r.nextDouble()) * 3600;
          w[1] = from;
          w[2] = from + (1 + 3 * r.nextDouble()) * 3600;
          w[3] = 0;
          w[4] = 0;
        }
      }
      double fall = 0;
      if (s >= w[1] && s < w[2]) {
        w[4] -= dt;
        if (w[4] <= 0) {
          w[3] = 1 - w[3];
          if (w[3] == 1) {
            w[4] = (3 + 9 * r.nextDouble()) * 60;
            w[5] = 1.2 * Math.exp(0.5 * HistoryGenerator.gaussian(r));
            w[6] = Math.max(0.1, Math.min(1, 0.65 * Math.exp(0.4 * HistoryGenerator.gaussian(r))));
          } else {
            w[4] = (10 + 30 * r.nextDouble()) * 60;
          }
        }
        if (w[3] == 1) {
          fall = Math.min(0.6, w[5] / BASE.trafficAt(hour)) * (1 - w[6]);
        }
      }
      return x - fall;
    };
  }

  /**
   * An SRE team's assistant. Incidents come at any hour (Poisson, about 0.8 a day), each 20 to 60
   * minutes long (uniform); in one the engineers alternate between pasting logs and stack traces
   * the draft predicts badly and discussing them, a two-state Markov chain whose spells last an
   * exponential of mean 2 minutes (pasting) and 3 minutes (discussing). While pasting they send c
   * drafts/s (lognormal, median 1.5, log-sd 0.5) accepted at a ratio of the others' rate uniform in
   * 0.3 to 0.6 (fixed per incident), their share of the deployment's drafts c over the profile's
   * traffic at that hour (10 x (1 + 0.5 sin(2 pi (hour - 9) / 24)) drafts/s, at most 0.6): about 5
   * to 40 % lower, deepest at night. One day in seven (the second of the family's own week, counted
   * from its start), from 10:00 to 11:00, a release review reads changelogs, 3 % higher. Under it a
   * 90-minute wander (AR(1), 0.7 % sd). Its own generator: intermittent excursions by day and by
   * night, each a cluster of minute-long dips; the level outside incidents is the normal, so a page
   * on one is false.
   */
  static Noise onCallIncidents() {
    // {seconds left, drafts/s, ratio, pasting (1) or discussing (0), seconds left in the spell}
    List<double[]> incidents = new ArrayList<>();
    FamilyClock clock = new FamilyClock(5400, 0.007);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      if (r.nextDouble() < dt * 0.8 / 86400) {
        incidents.add(
            new double[] {
              (20 + 40 * r.nextDouble()) * 60,
              1.5 * Math.exp(0.5 * HistoryGenerator.gaussian(r)),
              0.3 + 0.3 * r.nextDouble(),
              1,
              -120 * Math.log(1 - r.nextDouble())
            });
      }
      double traffic = BASE.trafficAt(hour);
      double fall = 0;
      for (var it = incidents.iterator(); it.hasNext(); ) {
        double[] c = it.next();
        if (c[3] == 1) {
          fall += Math.min(0.6, c[1] / traffic) * (1 - c[2]);
        }
        c[4] -= dt;
        if (c[4] <= 0) {
          c[3] = 1 - c[3];
          c[4] = -(c[3] == 1 ? 120 : 180) * Math.log(1 - r.nextDouble());
        }
        c[0] -= dt;
        if (c[0] <= 0) {
          it.remove();
        }
      }
      long day = Math.floorDiv(s, 86400);
      boolean review = Math.floorMod(day, 7) == 1 && hour >= 10 && hour < 11;
      return x + (review ? 0.03 : 0) - Math.min(0.8, fall);
    };
  }

  /**
   * A support desk whose agents answer through the deployment. In one region's working hours (13:00
   * to 21:00 of the family's own clock, weekdays) they switch to canned macros in spells (Poisson,
   * about 1.5 a working day, each 60 minutes plus an exponential of mean 60, at most 4 hours):
   * templated replies the draft predicts well, acceptance higher by 4 % + 8 % x u for the spell,
   * coming in and going out linearly over 5 minutes (spells that overlap: the higher one). About
   * once a day (Poisson, any hour) a ticketing tool fails and agents paste its error dumps:
   * acceptance lower by 15 to 30 % (uniform) for 10 to 30 minutes (uniform), each minute deeper or
   * shallower by a factor uniform in 0.8 to 1.2, starting within a minute and ending at once. Under
   * it the desk's staffing moves the mix in regimes (the level jumps to a new Gaussian value of 1 %
   * sd at Poisson times, about every 8 hours) and a 30-minute wander (AR(1), 0.5 % sd). Its own
   * generator: the only family with excursions above the level, hours long, beside short deep
   * outages that end sharply; the level outside outages is the normal, so a page on one is false.
   */
  static Noise macroHours() {
    double[] regime = {0};
    double[] outage = {0, 0, 0, 1, 0}; // seconds left, depth, seconds in, minute factor, age
    List<double[]> spells = new ArrayList<>(); // {seconds left, lift, seconds in}
    FamilyClock clock = new FamilyClock(1800, 0.005);
    return (t, dt, r) -> {
      double x =
          clock.wander(
              t,
              dt,
              r,
              () -> {
                regime[0] = 0.01 * HistoryGenerator.gaussian(r);
              });
      if (r.nextDouble() < dt / (8 * 3600.0)) {
        regime[0] = 0.01 * HistoryGenerator.gaussian(r);
      }
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      boolean weekday = Math.floorMod(s / 86400, 7) < 5;
      if (weekday && hour >= 13 && hour < 21 && r.nextDouble() < dt * 1.5 / (8 * 3600.0)) {
        double length = Math.min(240, 60 + 60 * -Math.log(1 - r.nextDouble())) * 60;
        spells.add(new double[] {length, 0.04 + 0.08 * r.nextDouble(), 0});
      }
      double lift = 0;
      for (var it = spells.iterator(); it.hasNext(); ) {
        double[] p = it.next();
        double ramp = Math.min(1, Math.min(p[2], p[0]) / 300);
        lift = Math.max(lift, p[1] * ramp);
        p[0] -= dt;
        p[2] += dt;
        if (p[0] <= 0) {
          it.remove();
        }
      }
      if (outage[0] <= 0 && r.nextDouble() < dt / 86400.0) {
        outage[0] = (10 + 20 * r.nextDouble()) * 60;
        outage[1] = 0.15 + 0.15 * r.nextDouble();
        outage[2] = 0;
        outage[4] = 60;
      }
      double fall = 0;
      if (outage[0] > 0) {
        outage[4] += dt;
        if (outage[4] >= 60) {
          outage[4] = 0;
          outage[3] = 0.8 + 0.4 * r.nextDouble();
        }
        fall = outage[1] * outage[3] * Math.min(1, (outage[2] + dt) / 60);
        outage[0] -= dt;
        outage[2] += dt;
      }
      return x + regime[0] + lift - fall;
    };
  }

  /**
   * A customer in a time zone whose working day is the family's night: its agent writes queries
   * over a schema the draft has never seen, in sessions from 22:00 to 07:00 of the family's own
   * clock, five nights in seven (Poisson, about six a night), each 5 to 20 minutes long (uniform).
   * In a session the client sends c drafts/s (lognormal, median 1.2, log-sd 0.4), accepted at a
   * ratio of the others' rate uniform in 0.35 to 0.6; its share of the deployment's drafts is c
   * over the profile's traffic at that hour (10 x (1 + 0.5 sin(2 pi (hour - 9) / 24)) drafts/s, at
   * most 0.6), so acceptance falls by the share x (1 - ratio): about 5 to 30 %, deepest at the
   * quietest hours. Sessions that overlap add up. Under it a 2-hour wander (AR(1), 0.9 % sd). Its
   * own generator: excursions confined to quiet hours, their depth set by the traffic they land in;
   * the level between sessions is the normal, so a page on one is false.
   */
  static Noise nightClient() {
    List<double[]> sessions = new ArrayList<>(); // {seconds left, drafts/s, ratio}
    FamilyClock clock = new FamilyClock(7200, 0.009);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      // The client's night starts at 22:00 of one day: its day of the week is that evening's.
      long night = Math.floorDiv(s - 7 * 3600, 86400);
      boolean working = (hour >= 22 || hour < 7) && Math.floorMod(night, 7) < 5;
      if (working && r.nextDouble() < dt * 6 / (9 * 3600.0)) {
        sessions.add(
            new double[] {
              (5 + 15 * r.nextDouble()) * 60,
              1.2 * Math.exp(0.4 * HistoryGenerator.gaussian(r)),
              0.35 + 0.25 * r.nextDouble()
            });
      }
      double traffic = BASE.trafficAt(hour);
      double fall = 0;
      for (var it = sessions.iterator(); it.hasNext(); ) {
        double[] c = it.next();
        fall += Math.min(0.6, c[1] / traffic) * (1 - c[2]);
        c[0] -= dt;
        if (c[0] <= 0) {
          it.remove();
        }
      }
      return x - Math.min(0.8, fall);
    };
  }

  /**
   * A coding assistant that summarises every file of a repository when a customer connects one:
   * onboardings come at a rate that follows working hours in three time zones (Poisson, 3 a day on
   * average, the rate 1 + 0.8 x sin of the hour, three humps a day), and an indexing job sends
   * generated code, vendored files and minified bundles the draft predicts badly. A job starts at
   * once (its full share within 30 seconds) and lasts 8 minutes plus an exponential of mean 10, at
   * most 40 minutes; at full share acceptance is lower by 10 % + 30 % x u^0.7 (u uniform: 10 to 40
   * %, spread out), each 30 seconds of files easier or harder by a lognormal factor (log-sd 0.2);
   * when it ends its share decays with a 3-minute time constant (the slowest files). Jobs that
   * overlap add up. Under it a mix that moves over days (1.2 % x the sine of a 2.3-day period, its
   * phase drawn) and a 45-minute wander (AR(1), 0.7 % sd). Its own generator: abrupt, uneven, long
   * excursions with slow tails, some longer than the record's 30 minutes; the level between jobs is
   * the normal, so a page on one is false.
   */
  static Noise repoIndexing() {
    double[] phase = {0};
    double[] jitter = {1, 0}; // the factor, seconds since drawn
    List<double[]> jobs = new ArrayList<>(); // {seconds left (<= 0: tail), depth, share}
    FamilyClock clock = new FamilyClock(2700, 0.007);
    return (t, dt, r) -> {
      double x =
          clock.wander(
              t,
              dt,
              r,
              () -> {
                phase[0] = 2 * Math.PI * r.nextDouble();
              });
      double s = clock.seconds(t);
      double hour = (s % 86400) / 3600;
      double rate = 3 / 86400.0 * (1 + 0.8 * Math.sin(2 * Math.PI * hour / 8));
      if (r.nextDouble() < dt * rate) {
        double length = Math.min(40, 8 + 10 * -Math.log(1 - r.nextDouble())) * 60;
        jobs.add(new double[] {length, 0.10 + 0.30 * Math.pow(r.nextDouble(), 0.7), 0});
      }
      jitter[1] += dt;
      if (jitter[1] >= 30) {
        jitter[1] = 0;
        jitter[0] = Math.exp(0.2 * HistoryGenerator.gaussian(r));
      }
      double fall = 0;
      for (var it = jobs.iterator(); it.hasNext(); ) {
        double[] j = it.next();
        j[2] = j[0] > 0 ? Math.min(1, j[2] + dt / 30) : j[2] * Math.exp(-dt / 180);
        fall += j[1] * j[2];
        j[0] -= dt;
        if (j[0] <= 0 && j[2] < 0.01) {
          it.remove();
        }
      }
      double days = s / 86400;
      return x
          + 0.012 * Math.sin(2 * Math.PI * days / 2.3 + phase[0])
          - Math.min(0.8, fall * jitter[0]);
    };
  }

  /**
   * A team's evaluation harness run against the deployment every night (one run, starting at a
   * uniform time from 01:00 to 04:00 of the family's own clock) and re-run by hand in the day
   * (Poisson, about one every two days, 09:00 to 19:00): a run sends a benchmark of competition
   * maths (LaTeX the draft predicts badly) for 10 to 25 minutes (uniform). Its share comes in over
   * about a minute (a logistic onset) and drains linearly over the run's last 40 % as the harness's
   * queue empties; at full share acceptance is lower by 18 to 35 % (18 % + 17 % x the larger of two
   * uniforms: most runs deep), each minute of prompts harder or easier than the run's own (a factor
   * 1 + 0.15 x a Gaussian, held for the minute). Under it two wanders (AR(1): 6 hours at 0.8 % sd,
   * 20 minutes at 0.6 % sd). Its own generator: rare, deep, long excursions, deeper than the
   * backstop's line (20 % at a 10 % floor) for 10 minutes and more, at one hour of the night and
   * sometimes in the day; the level between runs is the normal, so a page on one is false.
   */
  static Noise nightlyEvals() {
    double[] slow = {Double.NaN};
    double[] fast = {0};
    Instant[] start = {null};
    long[] nextNight = {-1}; // the day whose nightly run is still to start
    double[] nightAt = {0}; // its start, seconds into that day
    double[] run = {-1, 0, 0}; // seconds into the run (-1: none), its length, its depth
    double[] minute = {1, 0}; // this minute's factor, seconds since it was drawn
    return (t, dt, r) -> {
      if (start[0] == null) {
        start[0] = t;
        slow[0] = 0.008 * HistoryGenerator.gaussian(r);
        nextNight[0] = 0;
        nightAt[0] = (1 + 3 * r.nextDouble()) * 3600;
      }
      slow[0] = HistoryGenerator.ar1(slow[0], dt, 21600, 0.008, r);
      fast[0] = HistoryGenerator.ar1(fast[0], dt, 1200, 0.006, r);
      long s = Duration.between(start[0], t).toSeconds();
      long day = s / 86400;
      double inDay = s % 86400;
      boolean starts = false;
      if (day > nextNight[0]) { // a night passed without its run (a run still going): skipped
        nextNight[0] = day;
        nightAt[0] = (1 + 3 * r.nextDouble()) * 3600;
      }
      if (day == nextNight[0] && inDay >= nightAt[0]) {
        nextNight[0] = day + 1;
        nightAt[0] = (1 + 3 * r.nextDouble()) * 3600;
        starts = true;
      }
      double hour = inDay / 3600;
      if (hour >= 9 && hour < 19 && r.nextDouble() < dt * 0.5 / (10 * 3600.0)) {
        starts = true;
      }
      if (starts && run[0] < 0) {
        double u = Math.max(r.nextDouble(), r.nextDouble());
        run[0] = 0;
        run[1] = (10 + 15 * r.nextDouble()) * 60;
        run[2] = 0.18 + 0.17 * u;
      }
      minute[1] += dt;
      if (minute[1] >= 60) {
        minute[1] = 0;
        minute[0] = Math.max(0, 1 + 0.15 * HistoryGenerator.gaussian(r));
      }
      double fall = 0;
      if (run[0] >= 0) {
        double onset = 1 / (1 + Math.exp(-(run[0] - 45) / 15));
        double drain = Math.min(1, (run[1] - run[0]) / (0.4 * run[1]));
        fall = run[2] * onset * Math.max(0, drain) * minute[0];
        run[0] += dt;
        if (run[0] >= run[1]) {
          run[0] = -1;
        }
      }
      return slow[0] + fast[0] - Math.min(0.8, fall);
    };
  }

  /**
   * A document pipeline whose users upload folders at any hour of the family's own clock (Poisson,
   * about five sessions a day): a session sends the folder's OCR'd pages, whose broken words and
   * tables the draft predicts badly, for 12 to 30 minutes (uniform), its share of the traffic
   * rising linearly over the first third, held, and falling over the last third (a trapezoid); at
   * the plateau acceptance is lower by a lognormal depth (median 12 %, log-sd 0.45, at most 40 %),
   * and each 30 seconds of pages is rougher or cleaner than the session's own (a factor uniform in
   * 0.6 to 1.4). Sessions that overlap add up. Under it a 3-hour wander (AR(1), 1 % sd). Its own
   * generator: long, ramped, jittered excursions at random hours, longer than the record's 10
   * minutes; the level between sessions is the normal, so a page on one is false.
   */
  static Noise ingestion() {
    double[] jitter = {1};
    double[] sinceJitter = {0};
    List<double[]> sessions = new ArrayList<>(); // {seconds elapsed, length, depth}
    FamilyClock clock = new FamilyClock(10800, 0.01);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      if (r.nextDouble() < dt * 5 / 86400.0) {
        double depth = Math.min(0.40, 0.12 * Math.exp(0.45 * HistoryGenerator.gaussian(r)));
        sessions.add(new double[] {0, (12 + 18 * r.nextDouble()) * 60, depth});
      }
      sinceJitter[0] += dt;
      if (sinceJitter[0] >= 30) {
        sinceJitter[0] = 0;
        jitter[0] = 0.6 + 0.8 * r.nextDouble();
      }
      double fall = 0;
      for (var it = sessions.iterator(); it.hasNext(); ) {
        double[] s = it.next();
        double ramp = s[1] / 3;
        double shape = Math.min(1, Math.min(s[0] / ramp, (s[1] - s[0]) / ramp));
        fall += s[2] * Math.max(0, shape);
        s[0] += dt;
        if (s[0] >= s[1]) {
          it.remove();
        }
      }
      return x - Math.min(0.8, fall * jitter[0]);
    };
  }

  /**
   * A consumer chat app whose users role-play on two days of the family's own week (the second and
   * third of every seven, 10:00 to 24:00): bursts of emoji-laden chat the draft predicts badly
   * arrive about three an hour (Poisson), each lasting 1 to 5 minutes (uniform) and pulling
   * acceptance down by 8 to 33 % (8 % + 25 % x u², u uniform: most bursts shallow), bursts that
   * overlap adding up (at most 80 %); the other five days have none. Under it a 4-hour wander
   * (AR(1), 1 % sd). Its own generator: a day-of-week by hour interaction, Poisson overlapping
   * bursts of skewed depth; the level between bursts is the normal, so a page on one is false.
   */
  static Noise weekends() {
    List<double[]> bursts = new ArrayList<>(); // {seconds left, depth}
    FamilyClock clock = new FamilyClock(14400, 0.01);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      long day = (s / 86400) % 7;
      double hour = (s % 86400) / 3600.0;
      if ((day == 1 || day == 2) && hour >= 10 && r.nextDouble() < dt * 3 / 3600.0) {
        double u = r.nextDouble();
        bursts.add(new double[] {(1 + 4 * r.nextDouble()) * 60, 0.08 + 0.25 * u * u});
      }
      double fall = 0;
      for (var it = bursts.iterator(); it.hasNext(); ) {
        double[] b = it.next();
        fall += b[1];
        b[0] -= dt;
        if (b[0] <= 0) {
          it.remove();
        }
      }
      return x - Math.min(0.8, fall);
    };
  }

  /**
   * A team that load-tests the deployment on weekday afternoons (13:00 to 18:00 of the family's own
   * clock, five days in seven; about two tests an afternoon, Poisson): a test sends synthetic
   * prompts of random tokens, whose drafts are accepted at 15 % of the others' rate, in three
   * stages of equal length (uniform, 90 seconds to 3 minutes each), the synthetic share of the
   * drafts one, two and three times the test's base share (uniform, 8 to 18 %), so acceptance steps
   * down by 0.85 x the share, 7 to 46 % at the last stage; one test in four is stopped after its
   * second stage. Under it a 90-minute wander (AR(1), 1.2 % sd). Its own generator: a staircase
   * that deepens until it stops at once, confined to a fifth of the working days; the level between
   * tests is the normal, so a page on one is false.
   */
  static Noise loadTests() {
    double[] elapsed = {-1}; // seconds into the current test, or -1
    double[] stage = {0}; // seconds per stage
    double[] stages = {3};
    double[] share = {0};
    FamilyClock clock = new FamilyClock(5400, 0.012);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      boolean afternoon = (s / 86400) % 7 < 5 && hour >= 13 && hour < 18;
      if (elapsed[0] < 0 && afternoon && r.nextDouble() < dt * 2 / (5 * 3600.0)) {
        elapsed[0] = 0;
        stage[0] = 90 + 90 * r.nextDouble();
        stages[0] = r.nextDouble() < 0.25 ? 2 : 3;
        share[0] = 0.08 + 0.10 * r.nextDouble();
      }
      double fall = 0;
      if (elapsed[0] >= 0) {
        int k = (int) (elapsed[0] / stage[0]);
        if (k >= stages[0]) {
          elapsed[0] = -1;
        } else {
          fall = 0.85 * share[0] * (k + 1);
          elapsed[0] += dt;
        }
      }
      return x - fall;
    };
  }

  /**
   * A tutoring app whose classes start on the half hour during an 8-hour school day of the family's
   * own clock (09:00 to 17:00, seven days a week): at each start one to three classes (uniform)
   * each send a worked example whose LaTeX the draft predicts badly, for 2 to 6 minutes (uniform),
   * each bringing acceptance 4 to 14 % lower (triangular, mode 6 %), up to 42 % when three stack;
   * outside school hours no classes. Under it a 6-hour wander (AR(1), 1 % sd). Its own generator:
   * scheduled, stacked, confined to a third of the day, so a day of history has its excursions in
   * two of its four 6-hour periods; the level between them is the normal, so a page on one is
   * false.
   */
  static Noise classPeriods() {
    long[] lastSlot = {-1};
    List<double[]> classes = new ArrayList<>(); // {seconds left, depth}
    FamilyClock clock = new FamilyClock(21600, 0.01);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      long slot = s / 1800;
      double hour = (s % 86400) / 3600.0;
      if (slot != lastSlot[0]) {
        lastSlot[0] = slot;
        if (hour >= 9 && hour < 17) {
          int n = 1 + (int) (3 * r.nextDouble());
          for (int i = 0; i < n; i++) {
            double u = r.nextDouble();
            // Triangular on [0.04, 0.14] with mode 0.06.
            double depth =
                u < 0.2
                    ? 0.04 + Math.sqrt(u * 0.10 * 0.02)
                    : 0.14 - Math.sqrt((1 - u) * 0.10 * 0.08);
            classes.add(new double[] {(2 + 4 * r.nextDouble()) * 60, depth});
          }
        }
      }
      double fall = 0;
      for (var it = classes.iterator(); it.hasNext(); ) {
        double[] c = it.next();
        fall += c[1];
        c[0] -= dt;
        if (c[0] <= 0) {
          it.remove();
        }
      }
      return x - fall;
    };
  }

  /**
   * A document-scanning client that uploads a batch about every 90 minutes (gamma, shape 4: more
   * regular than Poisson), each running for its page count, 3 to 9 minutes (uniform). While a batch
   * runs its OCR'd text takes a share of the drafts (uniform, 30 to 70 %) that the draft predicts
   * at 40 to 60 % of the others' rate, so acceptance falls by share x (1 − rate), 12 to 42 %, the
   * share wobbling ±20 % of itself every 30 seconds as pages of different density go by. Under it a
   * 20-minute wander (AR(1), 1 % sd). Its own generator: excursions of every length between the
   * record's lengths, square-topped and rough, on a near-regular schedule; the level between them
   * is the normal, so a page on one is false.
   */
  static Noise scanBatches() {
    double[] untilNext = {Double.NaN};
    double[] left = {0};
    double[] share = {0};
    double[] rate = {0}; // the batch's acceptance against the others'
    double[] wobble = {1};
    double[] sinceWobble = {0};
    FamilyClock clock = new FamilyClock(1200, 0.01);
    return (t, dt, r) -> {
      double x =
          clock.wander(
              t,
              dt,
              r,
              () -> {
                untilNext[0] = 90 * 60 * r.nextDouble();
              });
      untilNext[0] -= dt;
      if (untilNext[0] <= 0) {
        double gamma = 0;
        for (int i = 0; i < 4; i++) {
          gamma -= Math.log(1 - r.nextDouble());
        }
        untilNext[0] = gamma / 4 * 90 * 60;
        left[0] = (3 + 6 * r.nextDouble()) * 60;
        share[0] = 0.3 + 0.4 * r.nextDouble();
        rate[0] = 0.4 + 0.2 * r.nextDouble();
      }
      double fall = 0;
      if (left[0] > 0) {
        sinceWobble[0] += dt;
        if (sinceWobble[0] >= 30) {
          sinceWobble[0] = 0;
          wobble[0] = 0.8 + 0.4 * r.nextDouble();
        }
        fall = Math.min(0.9, share[0] * wobble[0]) * (1 - rate[0]);
        left[0] -= dt;
      }
      return x - fall;
    };
  }

  /**
   * A code-review bot that reviews every merged pull request: each merge queues its diff-heavy
   * prompts, whose drafts are accepted at 45 % of the others' rate, so the deployment's acceptance
   * falls by 0.55 x the bot's share of the drafts. A merge adds a share (uniform, 15 to 50 %) that
   * rises over about 45 seconds and drains exponentially (time constant lognormal, median 4
   * minutes, log-sd 0.5, at most 15 minutes); merges stack. About six merges in each 12-hour
   * working day (08:00 to 20:00 of the family's own clock, five days in seven) and one a day
   * otherwise (Poisson). Under it a 45-minute wander (AR(1), 0.8 % sd). Its own generator: a sharp
   * rise and a long exponential tail whose length and depth go together, arriving by the working
   * week; falls deeper than the floor for 2 to 15 minutes, after which the level is the normal, so
   * a page on one is false.
   */
  static Noise reviewBot() {
    double[] slow = {0}; // the share queued, draining with the last merge's time constant
    double[] fast = {0}; // the part of it not yet arrived, arriving over 45 s
    double[] tau = {240};
    FamilyClock clock = new FamilyClock(2700, 0.008);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      long s = clock.seconds(t);
      double hour = (s % 86400) / 3600.0;
      boolean working = (s / 86400) % 7 < 5 && hour >= 8 && hour < 20;
      double perDay = working ? 12 : 1;
      if (r.nextDouble() < dt * perDay / 86400.0) {
        double added = 0.15 + 0.35 * r.nextDouble();
        tau[0] = Math.min(900, 240 * Math.exp(0.5 * HistoryGenerator.gaussian(r)));
        slow[0] += added;
        fast[0] += added;
      }
      slow[0] *= Math.exp(-dt / tau[0]);
      fast[0] *= Math.exp(-dt / 45);
      double share = Math.min(0.9, Math.max(0, slow[0] - fast[0]));
      return x - 0.55 * share;
    };
  }

  /**
   * An agent framework whose tool calls time out and retry in storms: about four storms a day
   * (Poisson), each a run of episodes (geometric, 4 on average) a few minutes apart (exponential, 5
   * minutes on average). In an episode the retried long prompts, whose outputs the draft predicts
   * badly, pull acceptance down over 30 seconds, hold it there (exponential, 90 seconds on average,
   * at most 10 minutes) and let it back over 30 seconds; its depth is lognormal (median 15 %,
   * log-sd 0.35, at most 45 %). Under it a 2-hour wander (AR(1), 1 % sd). Its own generator:
   * clustered, ramped and heavy-tailed where the eleventh and twelfth families' spikes are
   * independent, square and bounded. Deeper than the floor, for minutes: a page on one is false.
   */
  static Noise retryStorms() {
    double[] episodesLeft = {0}; // episodes still to come in the current storm
    double[] untilNext = {0}; // seconds until the next episode of the storm
    double[] elapsed = {-1}; // seconds into the current episode, or -1
    double[] hold = {0};
    double[] depth = {0};
    FamilyClock clock = new FamilyClock(7200, 0.01);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      if (elapsed[0] < 0) {
        if (episodesLeft[0] <= 0 && r.nextDouble() < dt * 4 / 86400.0) {
          episodesLeft[0] = 1;
          while (r.nextDouble() < 0.75) {
            episodesLeft[0]++;
          }
          untilNext[0] = 0;
        }
        if (episodesLeft[0] > 0) {
          untilNext[0] -= dt;
          if (untilNext[0] <= 0) {
            episodesLeft[0]--;
            elapsed[0] = 0;
            hold[0] = Math.min(600, -90 * Math.log(1 - r.nextDouble()));
            depth[0] = Math.min(0.45, 0.15 * Math.exp(0.35 * HistoryGenerator.gaussian(r)));
            untilNext[0] = -300 * Math.log(1 - r.nextDouble());
          }
        }
      }
      double fall = 0;
      if (elapsed[0] >= 0) {
        double e = elapsed[0];
        double shape =
            e < 30 ? e / 30 : e < 30 + hold[0] ? 1 : Math.max(0, 1 - (e - 30 - hold[0]) / 30);
        fall = depth[0] * shape;
        elapsed[0] += dt;
        if (elapsed[0] > 60 + hold[0]) {
          elapsed[0] = -1;
        }
      }
      return x - fall;
    };
  }

  /**
   * Requests in languages the draft model barely knows, from a translation client: about twenty a
   * day (Poisson), each from 30 seconds to 8 minutes (Pareto, shape 1.5: most under two minutes),
   * bringing acceptance 12 to 25 % lower while it runs. Under it a 3-hour wander (AR(1), 1.2 % sd).
   * Deeper than the floor, for minutes: the sustained level stays at the normal, so a page on one
   * is false.
   */
  static Noise rareLanguages() {
    return spikesOverWander(
        3 * 3600,
        0.012,
        20,
        r -> Math.min(30 / Math.pow(1 - r.nextDouble(), 1 / 1.5), 8 * 60),
        0.12,
        0.13);
  }

  /**
   * One client whose outputs the draft cannot predict (UUIDs, hashes, base64 blobs): about twelve
   * times a day (Poisson) it runs for 1 to 6 minutes and, while it runs, its drafts (near zero
   * acceptance) bring the deployment's acceptance 10 to 30 % lower. Under it a 1-hour wander
   * (AR(1), 0.8 % sd). Falls deeper than the floor, but for minutes: the sustained level never
   * leaves the normal, so a page on one is false.
   */
  static Noise incompressible() {
    return spikesOverWander(3600, 0.008, 12, r -> (1 + 5 * r.nextDouble()) * 60, 0.10, 0.20);
  }

  /**
   * Spikes of one client over a relative AR(1) wander ({@code wanderSeconds} correlation time,
   * {@code sd}): about {@code perDay} a day (Poisson), each {@code seconds} long (drawn when it
   * starts) and {@code depth} to {@code depth + depthRange} deep (uniform).
   */
  static Noise spikesOverWander(
      double wanderSeconds,
      double sd,
      double perDay,
      ToDoubleFunction<SplittableRandom> seconds,
      double depth,
      double depthRange) {
    double[] left = {0};
    double[] deep = {0};
    FamilyClock clock = new FamilyClock(wanderSeconds, sd);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      if (left[0] > 0) {
        left[0] -= dt;
      } else if (r.nextDouble() < dt * perDay / 86400.0) {
        left[0] = seconds.applyAsDouble(r);
        deep[0] = depth + depthRange * r.nextDouble();
      }
      return (left[0] > 0 ? -deep[0] : 0) + x;
    };
  }

  /**
   * One team's jobs, each with its own prompt mix: a new job about five times a day (Poisson)
   * brings acceptance to its own offset (Gaussian, 2 % sd, kept within ±5 %, above the 10 % floor),
   * under a 30-minute wander (AR(1), 1 % sd).
   */
  static Noise teamJobs() {
    double[] job = {Double.NaN};
    double[] x = {0};
    return (t, dt, r) -> {
      if (Double.isNaN(job[0]) || r.nextDouble() < dt * 5 / 86400.0) {
        job[0] = Math.max(-0.05, Math.min(0.05, 0.02 * HistoryGenerator.gaussian(r)));
      }
      x[0] = HistoryGenerator.ar1(x[0], dt, 1800, 0.01, r);
      return job[0] + x[0];
    };
  }

  /**
   * A day-of-week by hour interaction: a coding tenant busy on weekdays from 09:00 to 18:00 UTC
   * brings acceptance 6 % lower then, and is absent at weekends. The learner's level by hour of day
   * averages the week, so weekday afternoons sit below it and weekend afternoons above.
   */
  static Noise weekdayHours() {
    return (t, dt, r) -> {
      var z = t.atZone(ZoneOffset.UTC);
      boolean weekday =
          z.getDayOfWeek() != DayOfWeek.SATURDAY && z.getDayOfWeek() != DayOfWeek.SUNDAY;
      int hour = z.getHour();
      return weekday && hour >= 9 && hour < 18 ? -0.06 : 0;
    };
  }

  /**
   * One long-context client arriving in bursts: about three a day (Poisson), each lasting 20 to 120
   * minutes, during which its share of the drafts brings acceptance 4 to 8 % lower, under the 10 %
   * floor, so a page during a burst is false.
   */
  static Noise longContextBursts() {
    double[] left = {0};
    double[] depth = {0};
    return (t, dt, r) -> {
      if (left[0] > 0) {
        left[0] -= dt;
      } else if (r.nextDouble() < dt * 3 / 86400.0) {
        left[0] = (20 + 100 * r.nextDouble()) * 60;
        depth[0] = 0.04 + 0.04 * r.nextDouble();
      }
      return left[0] > 0 ? -depth[0] : 0;
    };
  }

  /**
   * Four tenants that come and go on their own (each on for about 45 minutes, off for about 3
   * hours, moving acceptance by -4 %, -2.5 %, +2 % and +3 % while on), over a 3.5-day cycle of the
   * prompt mix (±3 %) that the learner's level by hour of day cannot hold. Falls within the hour of
   * up to 6.5 % happen several times a day, all above the 10 % floor.
   */
  static Noise tenantChurn() {
    double[] shift = {-0.04, -0.025, 0.02, 0.03};
    boolean[] on = new boolean[shift.length];
    Instant[] start = {null};
    return (t, dt, r) -> {
      if (start[0] == null) {
        start[0] = t;
      }
      double sum = 0;
      for (int i = 0; i < shift.length; i++) {
        double dwell = on[i] ? 45 * 60 : 3 * 3600;
        if (r.nextDouble() < dt / dwell) {
          on[i] = !on[i];
        }
        sum += on[i] ? shift[i] : 0;
      }
      double days = Duration.between(start[0], t).toSeconds() / 86400.0;
      return sum + 0.03 * Math.sin(2 * Math.PI * days / 3.5);
    };
  }

  /**
   * Families written for a change not made yet, run only when {@code -Dbench.families} names them:
   * a family that has been run is no longer held out for the change it was written to judge. The
   * change that uses one runs it before and after, then removes it from here.
   */
  static final List<String> HELD_BACK = List.of();

  /**
   * The families to run: all but {@link #HELD_BACK} by default, or those whose names {@code
   * -Dbench.families} lists (comma-separated). Seeds stay those of the family's place in {@link
   * #FAMILIES}.
   */
  static boolean selected(Family f) {
    return selected(f.name(), System.getProperty("bench.families", ""));
  }

  /**
   * Whether {@code -Dbench.families=only} selects the family {@code name}. A name may hold commas
   * itself ("weekly, trend, heavy tails"): both sides are compared with the spaces around their
   * commas dropped, the name between two of the list's commas.
   */
  static boolean selected(String name, String only) {
    return only.isBlank()
        ? !HELD_BACK.contains(name)
        : ("," + commas(only) + ",").contains("," + commas(name) + ",");
  }

  private static String commas(String names) {
    return String.join(",", java.util.Arrays.stream(names.split(",")).map(String::trim).toList());
  }

  /**
   * Scheduled batch jobs (an evaluation suite, a nightly-style re-ranking run) started every 100
   * minutes, a period the level by hour of day cannot hold: each run lasts 25 to 40 minutes and
   * brings acceptance 3 to 6 % lower while it runs, and three runs in ten are skipped. Under it a
   * 20-minute wander (AR(1), 1 % sd). About ten falls of up to 6 % within minutes a day, all above
   * the 10 % floor, and a dip a few points deep for a third of the day.
   */
  static Noise cronBatches() {
    Instant[] start = {null};
    long[] run = {-1};
    double[] depth = {0};
    double[] length = {0};
    double[] x = {0};
    return (t, dt, r) -> {
      if (start[0] == null) {
        start[0] = t;
      }
      double seconds = Duration.between(start[0], t).toSeconds();
      long n = (long) Math.floor(seconds / 6000);
      if (n != run[0]) {
        run[0] = n;
        boolean skipped = r.nextDouble() < 0.3;
        depth[0] = skipped ? 0 : 0.03 + 0.03 * r.nextDouble();
        length[0] = (25 + 15 * r.nextDouble()) * 60;
      }
      x[0] = HistoryGenerator.ar1(x[0], dt, 1200, 0.01, r);
      return (seconds - n * 6000 < length[0] ? -depth[0] : 0) + x[0];
    };
  }

  /**
   * Engines restarted about once a day (counter resets, {@link #RESTARTING}) and new builds rolled
   * out about once a day at random times, each moving acceptance from the last build's by a
   * Gaussian 2 % (half of the last build's offset kept: builds do not walk away for good). Steps of
   * a few percent that last a day, at any hour, over a 5-minute wander.
   */
  static Noise buildsAndRestarts() {
    double[] build = {0};
    return (t, dt, r) -> {
      if (r.nextDouble() < dt / 86400.0) {
        build[0] = 0.5 * build[0] + 0.02 * HistoryGenerator.gaussian(r);
      }
      return build[0];
    };
  }

  /** A relative AR(1) wander with a 90-minute correlation time and a 1.2 % standard deviation. */
  static Noise ninetyMinuteWander() {
    FamilyClock clock = new FamilyClock(5400, 0.012);
    return (t, dt, r) -> {
      double x = clock.wander(t, dt, r);
      return x;
    };
  }

  /** Relative AR(1) components at 1 h, 6 h and 2 d: correlations lasting hours to days. */
  static Noise longMemory() {
    double[] tau = {3600, 6 * 3600, 2 * 86400};
    double[] sd = {0.012, 0.015, 0.02};
    double[] x = new double[3];
    boolean[] started = {false};
    return (t, dt, r) -> {
      double sum = 0;
      for (int i = 0; i < 3; i++) {
        x[i] =
            started[0]
                ? HistoryGenerator.ar1(x[i], dt, tau[i], sd[i], r)
                : sd[i] * HistoryGenerator.gaussian(r);
        sum += x[i];
      }
      started[0] = true;
      return sum;
    };
  }

  /** Normal (mean dwell 10 h), a batch job at -5 % (3 h), a new client at +3 % (4 h). */
  static Noise regimes() {
    double[] shift = {0, -0.05, 0.03};
    double[] dwell = {10 * 3600, 3 * 3600, 4 * 3600};
    int[] state = {0};
    return (t, dt, r) -> {
      if (r.nextDouble() < dt / dwell[state[0]]) {
        state[0] = state[0] == 0 ? 1 + r.nextInt(2) : 0;
      }
      return shift[state[0]];
    };
  }

  /**
   * Weekends 4 % lower, a trend of -0.25 % a day, and a 10-minute wander driven by Student-t(3)
   * innovations (bursts far beyond a Gaussian's).
   */
  static Noise weeklyTrendHeavy() {
    Instant[] start = {null};
    double[] x = {0};
    return (t, dt, r) -> {
      if (start[0] == null) {
        start[0] = t;
      }
      DayOfWeek day = t.atZone(ZoneOffset.UTC).getDayOfWeek();
      double weekly = day == DayOfWeek.SATURDAY || day == DayOfWeek.SUNDAY ? -0.04 : 0;
      double trend = -0.0025 * Duration.between(start[0], t).toSeconds() / 86400.0;
      double rho = Math.exp(-dt / 600);
      double g = HistoryGenerator.gaussian(r);
      double chi = 0;
      for (int i = 0; i < 3; i++) {
        double z = HistoryGenerator.gaussian(r);
        chi += z * z;
      }
      double studentT = g / Math.sqrt(chi / 3) / Math.sqrt(3.0); // unit variance
      x[0] = rho * x[0] + Math.sqrt(1 - rho * rho) * 0.012 * studentT;
      return weekly + trend + x[0];
    };
  }

  /** A dip of {@code size} for {@code lasts} from {@code at}, on top of a family's noise. */
  static Supplier<Noise> dip(Supplier<Noise> base, double size, Instant at, Duration lasts) {
    return () -> {
      Noise n = base.get();
      return (t, dt, r) ->
          n.next(t, dt, r) - (!t.isBefore(at) && t.isBefore(at.plus(lasts)) ? size : 0);
    };
  }

  record Case(Model model, Family family, String kind, Instant at) {
    /**
     * Until when a page on this case is false: the whole history of a healthy case or a dip (its
     * true drop is under the floor), until the step of any other.
     */
    Instant healthyEnd(Instant to) {
      return at == null || kind.startsWith("dip") ? to : at;
    }
  }

  record Detector(String name, Function<Case, Policy> policy) {}

  static final List<String> KINDS =
      List.of("healthy", "dip -7 % 4h", "floor -10 %", "15 %", "30 %", "15 % drift");

  /** The kind of a 30 % drop fixed after {@link #FIXED_AFTER} (only with -Dbench.fixed=true). */
  static final String FIXED = "30 % fixed after 1h";

  static final Duration FIXED_AFTER = Duration.ofHours(1);

  /** The drops that last to the end of the replay. */
  static final List<String> LASTING = List.of("15 %", "30 %", "15 % drift");

  public static void main(String[] args) throws Exception {
    long wallStart = System.nanoTime();
    Instant to = HistoryGenerator.lastTuesdayMidnight(Instant.now());
    Instant from = to.minus(Duration.ofDays(10));
    Instant evalFrom = from.plus(Duration.ofDays(7));
    // 14:00 UTC of the last full day.
    Instant at = to.minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.DAYS).plusSeconds(14 * 3600);
    List<Case> cases = new ArrayList<>();
    for (int fi = 0; fi < FAMILIES.size(); fi++) {
      Family f = FAMILIES.get(fi);
      if (!selected(f)) {
        continue;
      }
      String slug = f.name().replaceAll("[^a-z]+", "-");
      long seed = SEED + (long) fi * SEEDS * KINDS.size();
      for (int s = 0; s < SEEDS; s++) {
        for (String kind : KINDS) {
          String name = "heldout/" + slug + "/" + s + "/" + kind.replaceAll("[^a-z0-9]+", "");
          Drop drop =
              switch (kind) {
                case "floor -10 %" -> new Drop(0.10, at, Duration.ZERO);
                case "15 %" -> new Drop(0.15, at, Duration.ZERO);
                case "30 %" -> new Drop(0.30, at, Duration.ZERO);
                case "15 % drift" -> new Drop(0.15, at, Duration.ofHours(2));
                default -> null;
              };
          Supplier<Noise> noise =
              kind.startsWith("dip") ? dip(f.noise(), 0.07, at, Duration.ofHours(4)) : f.noise();
          cases.add(
              new Case(
                  new Model(name, f.profile(), drop, from, to, seed++, noise),
                  f,
                  kind,
                  kind.equals("healthy") ? null : at));
        }
        if (Boolean.getBoolean("bench.fixed")) {
          // A 30 % drop fixed after an hour (-Dbench.fixed=true; seeds of their own, so the other
          // cases keep theirs): how long the page stays open once the level is back.
          String name = "heldout/" + slug + "/" + s + "/fixed";
          cases.add(
              new Case(
                  new Model(
                      name,
                      f.profile(),
                      null,
                      from,
                      to,
                      900_000L + (long) fi * SEEDS + s,
                      dip(f.noise(), 0.30, at, FIXED_AFTER)),
                  f,
                  FIXED,
                  at));
        }
      }
    }
    Path dir = Files.createDirectories(Path.of("target/heldout-bench"));
    List<Path> history =
        HistoryGenerator.writeDaily(dir, cases.stream().map(Case::model).toList(), SCRAPE);
    System.out.printf(
        Locale.ROOT,
        "generated %d models x 10 d at %ss scrape; backfilling...%n",
        cases.size(),
        SCRAPE.toSeconds());
    List<Detector> detectors = new ArrayList<>();
    String learn = System.getProperty("bench.learn", "");
    for (int days : new int[] {7, 3, 1}) {
      if (learn.isBlank() || List.of(learn.split(",")).contains(days + "d")) {
        detectors.add(
            new Detector(
                "change (10 %, "
                    + INTERVAL.toDays()
                    + "d, learn "
                    + days
                    + "d"
                    + (FOR.isZero() ? "" : ", for " + FOR.toMinutes() + "m")
                    + ")",
                c -> change(c, Duration.ofDays(days))));
      }
    }
    Map<String, Map<Case, List<Instant>>> firings = new LinkedHashMap<>();
    Map<String, List<Recovery>> recoveries = new LinkedHashMap<>();
    Map<String, List<Double>> falseOpen = new LinkedHashMap<>();
    String doubts;
    try (PrometheusServer prometheus =
        PrometheusServer.builder().scrapeInterval(SCRAPE).historyFiles(history).start()) {
      for (Path f : history) {
        Files.delete(f);
      }
      PrometheusClient client =
          new PrometheusClient(
              // Eighteen families' 1,080 deployments: one replay query's body passes the
              // daemon's default 64 MB (prometheus.max_response_size).
              PrometheusSettings.of(prometheus.baseUri())
                  .withTimeout(Duration.ofMinutes(2))
                  .withMaxResponseBytes(256L * 1024 * 1024));
      for (Detector d : detectors) {
        long start = System.nanoTime();
        Replayer.Result r =
            new Replayer(client, SpecwatchConfig.Alerting.defaults())
                .replay(cases.stream().map(d.policy()).toList(), WINDOW, evalFrom, to, STEP);
        Map<Case, List<Instant>> byCase = new LinkedHashMap<>();
        for (Case c : cases) {
          byCase.put(c, DetectionBench.fired(r, c.model().name()));
          if (c.at() != null && !c.kind().startsWith("dip")) {
            // Which test paged each step (at the floor: the record issue 40's part 4 is judged
            // on; 15 % and 30 %: which test a delay comes from), and how long after it.
            r.transitions().stream()
                .filter(t -> t.recipe().equals(c.model().name()))
                .filter(t -> t.kind() == Transition.Kind.FIRING && !t.at().isBefore(c.at()))
                .findFirst()
                .ifPresent(
                    t ->
                        System.out.printf(
                            Locale.ROOT,
                            "%s, %s, %s: paged %d min after the step: %s%n",
                            c.kind().startsWith("floor") ? "at the floor" : "paged " + c.kind(),
                            d.name(),
                            c.model().name(),
                            Duration.between(c.at(), t.at()).toMinutes(),
                            t.reason()));
          }
          // Every page the report counts as false (on healthy history, before a step, or on the
          // dip under the floor), with the test that raised it and how long it stayed open (a
          // page still open at a step hides the step's own): what a false page is made of.
          Instant healthyEnd = c.healthyEnd(to);
          List<Transition> own =
              r.transitions().stream().filter(t -> t.recipe().equals(c.model().name())).toList();
          String key = c.family().name() + " | " + d.name();
          for (Transition t : own) {
            if (t.kind() != Transition.Kind.FIRING || !t.at().isBefore(healthyEnd)) {
              continue;
            }
            double open = openMinutes(t, own);
            falseOpen.computeIfAbsent(key, k -> new ArrayList<>()).add(open);
            System.out.printf(
                Locale.ROOT,
                "false page, %s, %s: at %s%s, %s: %s%n",
                d.name(),
                c.model().name(),
                t.at(),
                c.at() != null && !t.at().isBefore(c.at())
                    ? String.format(
                        Locale.ROOT,
                        " (%d min into the dip)",
                        Duration.between(c.at(), t.at()).toMinutes())
                    : "",
                Double.isNaN(open) ? "open to the end" : "open " + (long) open + " min",
                t.reason());
          }
          recoveries.computeIfAbsent(key, k -> new ArrayList<>()).add(recovery(c, own, to));
        }
        firings.put(d.name(), byCase);
        System.out.printf(
            Locale.ROOT,
            "%-34s replayed %d steps in %.0f s%n",
            d.name(),
            r.steps(),
            (System.nanoTime() - start) / 1e9);
      }
      doubts = healthyModels(client, cases, evalFrom, to);
      for (double factor : new double[] {0.9, 0.8}) {
        String name =
            String.format(Locale.ROOT, "Prometheus AR(5m) < %.1f x level for 10m", factor);
        Map<Case, List<Instant>> byCase = new LinkedHashMap<>();
        for (Case c : cases) {
          byCase.put(
              c,
              DetectionBench.prometheusRule(
                  client,
                  new DetectionBench.Case(c.model(), c.family().profile(), c.kind(), c.at()),
                  factor,
                  evalFrom,
                  to));
        }
        firings.put(name, byCase);
      }
    }
    DetectionBench.publish(
        dir,
        report(firings, cases, evalFrom, to) + recoveryReport(recoveries, falseOpen) + doubts,
        wallStart);
  }

  /**
   * The healthy deployments' models, learned from 7 days at the start of the evaluation and at each
   * day after (four models sharing four to six of their seven days), per family: how many of the
   * first are in doubt (the doubt check on families it should flag), and how steady a model is from
   * one relearn to the next: per deployment the largest over the smallest of their long-run wander
   * λ (what the change rule's threshold scales with) and the range of their widening for wander
   * over hours. Measured, not judged: the record issue 40's notes ask for before a design change to
   * the widening.
   */
  static String healthyModels(PrometheusClient client, List<Case> cases, Instant from, Instant to)
      throws Exception {
    StringBuilder doubts = new StringBuilder("\nModels in doubt (healthy deployments, learn 7d):");
    StringBuilder out =
        new StringBuilder(
            "Relearn stability (healthy deployments, learn 7d at the start and each day after):"
                + " wander max/min median, worst; widening low-high median\n");
    Learner learner = new Learner(client);
    for (Family f : FAMILIES.stream().filter(HeldOutBench::selected).toList()) {
      int doubt = 0;
      int all = 0;
      List<Double> ratios = new ArrayList<>();
      List<Double> lows = new ArrayList<>();
      List<Double> highs = new ArrayList<>();
      for (Case c : cases) {
        if (!c.family().equals(f) || !c.kind().equals("healthy")) {
          continue;
        }
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        double low = Double.POSITIVE_INFINITY;
        double high = 0;
        for (Instant at = from; !at.isAfter(to); at = at.plus(Duration.ofDays(1))) {
          RecipeModel m = learner.learnNow(change(c, Duration.ofDays(7)), STEP, at);
          if (at.equals(from)) {
            all++;
            doubt += m.model() != null && m.model().doubt() != null ? 1 : 0;
          }
          if (m.model() == null) {
            continue;
          }
          min = Math.min(min, m.model().wander());
          max = Math.max(max, m.model().wander());
          low = Math.min(low, m.model().hoursWidening());
          high = Math.max(high, m.model().hoursWidening());
        }
        if (max > 0) {
          ratios.add(max / min);
          lows.add(low);
          highs.add(high);
        }
      }
      out.append(
          String.format(
              Locale.ROOT,
              "  %s: %.2f, %.2f; %.1f-%.1f (%d deployments)%n",
              f.name(),
              median(ratios),
              ratios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN),
              median(lows),
              median(highs),
              ratios.size()));
      doubts.append(String.format(Locale.ROOT, " %s %d of %d;", f.name(), doubt, all));
    }
    return doubts.append('\n').append(out).toString();
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.isEmpty() ? Double.NaN : sorted.get((sorted.size() - 1) / 2);
  }

  static Policy change(Case c, Duration learn) {
    return Policy.builder(
            c.model().name(), Map.of("model_name", c.model().name()), HistoryGenerator.K)
        .minDrafts(10)
        .forDuration(FOR)
        .keepFiringFor(Duration.ofMinutes(10))
        .change(new Policy.Change(0.10, INTERVAL, learn, Optional.empty()))
        .build();
  }

  /**
   * How a drop's page ended: minutes from the step to the page (NaN: none), from the fix to the
   * page's resolution (a drop fixed after {@link #FIXED_AFTER}; NaN: none, or not that kind), and
   * how many times the page resolved while the drop still lasted (a recovery that was false).
   */
  record Recovery(String kind, double paged, double resolvedAfterFix, int resolvedDuring) {}

  /** The {@link Recovery} of a case from its own transitions, or null for a case with no drop. */
  static Recovery recovery(Case c, List<Transition> own, Instant to) {
    if (c.at() == null || !(c.kind().equals(FIXED) || LASTING.contains(c.kind()))) {
      return null;
    }
    Transition page =
        own.stream()
            .filter(t -> t.kind() == Transition.Kind.FIRING && !t.at().isBefore(c.at()))
            .findFirst()
            .orElse(null);
    if (page == null) {
      return new Recovery(c.kind(), Double.NaN, Double.NaN, 0);
    }
    Instant end = c.kind().equals(FIXED) ? c.at().plus(FIXED_AFTER) : to;
    int during =
        (int)
            own.stream()
                .filter(t -> t.kind() == Transition.Kind.RESOLVED)
                .filter(t -> t.at().isAfter(page.at()) && t.at().isBefore(end))
                .count();
    double afterFix =
        c.kind().equals(FIXED)
            ? own.stream()
                .filter(t -> t.kind() == Transition.Kind.RESOLVED && !t.at().isBefore(end))
                .findFirst()
                .map(t -> Duration.between(end, t.at()).toSeconds() / 60.0)
                .orElse(Double.NaN)
            : Double.NaN;
    return new Recovery(
        c.kind(), Duration.between(c.at(), page.at()).toSeconds() / 60.0, afterFix, during);
  }

  /**
   * Minutes from {@code page} to the first resolution after it among {@code own} (its case's
   * transitions), whole minutes as the bench prints them; NaN when it stayed open to the end.
   */
  static double openMinutes(Transition page, List<Transition> own) {
    return own.stream()
        .filter(e -> e.kind() == Transition.Kind.RESOLVED && e.at().isAfter(page.at()))
        .findFirst()
        .map(e -> (double) Duration.between(page.at(), e.at()).toMinutes())
        .orElse(Double.NaN);
  }

  /**
   * Per family and detector: how long a page stays open once a drop is fixed (with
   * -Dbench.fixed=true), how often a page resolved while its drop still lasted, and how long the
   * false pages stayed open ({@code falseOpen}, minutes per false page, NaN: to the end).
   */
  static String recoveryReport(
      Map<String, List<Recovery>> recoveries, Map<String, List<Double>> falseOpen) {
    StringBuilder out = new StringBuilder();
    out.append(
        "\n| family | detector | 30 % fixed after 1h: paged p50 / p90 (found) | resolved after"
            + " the fix p50 / p90 (resolved) | drops whose page resolved while they lasted | false"
            + " pages open p50 / p90 (resolved) |\n");
    out.append("|---|---|---|---|---|---|\n");
    recoveries.forEach(
        (key, all) -> {
          List<Recovery> rs = all.stream().filter(java.util.Objects::nonNull).toList();
          List<Recovery> fixed = rs.stream().filter(r -> r.kind().equals(FIXED)).toList();
          List<Recovery> paged = rs.stream().filter(r -> !Double.isNaN(r.paged())).toList();
          out.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %s | %d of %d | %s |%n",
                  key,
                  fixed.isEmpty() ? "–" : percentiles(fixed.stream().map(Recovery::paged).toList()),
                  fixed.isEmpty()
                      ? "–"
                      : percentiles(
                          fixed.stream()
                              .filter(r -> !Double.isNaN(r.paged()))
                              .map(Recovery::resolvedAfterFix)
                              .toList()),
                  paged.stream().filter(r -> r.resolvedDuring() > 0).count(),
                  paged.size(),
                  falseOpen.getOrDefault(key, List.of()).isEmpty()
                      ? "none"
                      : percentiles(falseOpen.get(key))));
        });
    return out.toString();
  }

  /**
   * Per family and detector: false pages per 30 days (Garwood 95 %), counting every page before a
   * drop and every page of a dip (its true drop is under the floor); detection delay percentiles
   * and the share found, per drop.
   */
  static String report(
      Map<String, Map<Case, List<Instant>>> firings,
      List<Case> cases,
      Instant evalFrom,
      Instant to) {
    StringBuilder out = new StringBuilder();
    out.append(
        "\n| family | detector | false pages / 30 d (95 %) | dip -7 % paged | at the floor -10 %"
            + " paged | 15 % p50 / p90 (found) | 30 % p50 / p90 (found) | 15 % drift p50 / p90"
            + " (found) |\n");
    out.append("|---|---|---|---|---|---|---|---|\n");
    for (Family f : FAMILIES.stream().filter(HeldOutBench::selected).toList()) {
      for (Map.Entry<String, Map<Case, List<Instant>>> d : firings.entrySet()) {
        long falsePages = 0;
        double days = 0;
        int dipsPaged = 0;
        int dips = 0;
        int floorsPaged = 0;
        int floors = 0;
        Map<String, List<Double>> delays = new LinkedHashMap<>();
        for (Case c : cases) {
          if (!c.family().equals(f)) {
            continue;
          }
          List<Instant> fired = d.getValue().get(c);
          boolean dip = c.kind().startsWith("dip");
          Instant healthyEnd = c.healthyEnd(to);
          long before = fired.stream().filter(t -> t.isBefore(healthyEnd)).count();
          falsePages += before;
          days += Duration.between(evalFrom, healthyEnd).toMinutes() / 1440.0;
          if (c.kind().startsWith("floor")) {
            // Exactly at the floor: the composite null's boundary, designed to page at most once
            // per false_alarm_interval; neither a false page nor a drop to find.
            floors++;
            floorsPaged += fired.stream().anyMatch(t -> !t.isBefore(c.at())) ? 1 : 0;
          } else if (dip) {
            dips++;
            boolean paged = fired.stream().anyMatch(t -> !t.isBefore(c.at()));
            dipsPaged += paged ? 1 : 0;
          } else if (c.at() != null) {
            double minutes =
                fired.stream()
                    .filter(t -> !t.isBefore(c.at()))
                    .findFirst()
                    .map(t -> Duration.between(c.at(), t).toSeconds() / 60.0)
                    .orElse(Double.NaN);
            delays.computeIfAbsent(c.kind(), k -> new ArrayList<>()).add(minutes);
          }
        }
        double[] ci = DetectionBench.garwood(falsePages);
        double per30 = 30 / days;
        out.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %.2f (%.2f–%.2f) | %d of %d | %d of %d |",
                f.name(),
                d.getKey(),
                falsePages * per30,
                ci[0] * per30,
                ci[1] * per30,
                dipsPaged,
                dips,
                floorsPaged,
                floors));
        for (String kind : List.of("15 %", "30 %", "15 % drift")) {
          out.append(' ').append(percentiles(delays.getOrDefault(kind, List.of()))).append(" |");
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  /** "12 / 40 min (9 of 10)": median and 90th percentile of the found ones, and how many. */
  static String percentiles(List<Double> minutes) {
    List<Double> found = minutes.stream().filter(m -> !Double.isNaN(m)).sorted().toList();
    if (found.isEmpty()) {
      return "– (0 of " + minutes.size() + ")";
    }
    double p50 = found.get((found.size() - 1) / 2);
    double p90 = found.get((int) Math.ceil(0.9 * found.size()) - 1);
    return String.format(
        Locale.ROOT, "%.0f / %.0f min (%d of %d)", p50, p90, found.size(), minutes.size());
  }
}
