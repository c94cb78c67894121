package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Policy;
import dev.specwatch.model.PolicyBuilder;
import dev.specwatch.model.Severity;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.model.TimeInterval;
import dev.specwatch.signals.ActiveK;
import dev.specwatch.signals.Baseline;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SignalForm;
import dev.specwatch.signals.SignalValues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state machine, table-driven over a fake clock: each row is one evaluation (seconds since T0,
 * the recipe's state and acceptance) and the transitions it must produce.
 */
class AlertEngineTest {
  static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
  static final Duration WINDOW = Duration.ofMinutes(5);

  static final Policy POLICY = qwen().build();

  /** qwen with a floor at 0.45 (cleared above 0.5), for 2m and keep_firing_for 2m. */
  static PolicyBuilder qwen() {
    return Policy.builder("qwen", Map.of("model_name", "q"), 3)
        .forDuration(Duration.ofMinutes(2))
        .keepFiringFor(Duration.ofMinutes(2))
        .acceptanceRate(new Threshold(0.45, OptionalDouble.of(0.5), Optional.empty()));
  }

  private final AlertEngine engine =
      new AlertEngine(new SpecwatchConfig.Alerting(Duration.ofHours(1), Duration.ofMinutes(2)));

  record Row(long seconds, RecipeState state, Double acceptance, String expect) {}

  static Row row(long seconds, RecipeState state, Double acceptance, String expect) {
    return new Row(seconds, state, acceptance, expect);
  }

  static Evaluation evaluation(
      long seconds,
      RecipeState state,
      Double acceptance,
      Optional<Baseline> baseline,
      Double drafts) {
    SignalValues v =
        new SignalValues(
            acceptance,
            acceptance == null ? null : 1 + 3 * acceptance,
            List.of(),
            100.0,
            50.0,
            150.0,
            drafts,
            10.0);
    String error =
        state == RecipeState.ERROR ? "http://p:9090/api/v1/query: connection refused" : null;
    return new Evaluation(
        T0.plusSeconds(seconds),
        WINDOW,
        List.of(
            new RecipeSnapshot(
                "qwen", "vllm", state, v, List.of(), baseline, Optional.ofNullable(error))),
        7);
  }

  /** Runs the rows through the engine (optionally saving and reloading state before each). */
  private AlertState run(AlertState state, Policy policy, List<Row> rows) throws IOException {
    return run(state, policy, rows, null);
  }

  private AlertState run(AlertState state, Policy policy, List<Row> rows, StateStore restartVia)
      throws IOException {
    for (Row r : rows) {
      if (restartVia != null) {
        restartVia.save(state);
        state = restartVia.load();
      }
      AlertEngine.Step step =
          engine.step(
              state,
              List.of(policy),
              evaluation(r.seconds(), r.state(), r.acceptance(), Optional.empty(), 5000.0),
              List.of());
      state = step.state();
      assertThat(describe(step.transitions())).as("at %ss", r.seconds()).isEqualTo(r.expect());
    }
    return state;
  }

  static String describe(List<Transition> transitions) {
    List<String> out = new ArrayList<>();
    for (Transition t : transitions) {
      out.add(
          t.kind().name().toLowerCase(java.util.Locale.ROOT)
              + " "
              + t.alertId()
              + (t.silenced() ? " silenced" : ""));
    }
    return String.join(", ", out);
  }

  static final String FIRE = "firing qwen/acceptance_rate";
  static final String RESOLVE = "resolved qwen/acceptance_rate";
  static final RecipeState OK = RecipeState.OK;
  static final RecipeState BREACH = RecipeState.BREACH;

  static final List<Row> FIRE_THEN_RECOVER =
      List.of(
          row(0, OK, 0.80, ""),
          row(30, BREACH, 0.40, ""), // pending
          row(90, BREACH, 0.41, ""), // pending, 60s < for
          row(150, BREACH, 0.40, FIRE), // 120s >= for
          row(180, OK, 0.48, ""), // above below but not above clear_above: hysteresis holds
          row(210, OK, 0.55, ""), // clear, keep_firing_for starts
          row(270, BREACH, 0.40, ""), // breached again: still firing, clear timer reset
          row(300, OK, 0.60, ""),
          row(390, OK, 0.60, ""), // 90s clear < 2m
          row(420, OK, 0.60, RESOLVE), // 120s clear
          row(450, OK, 0.60, ""));

  @Test
  void firesAfterForHoldsThroughHysteresisAndResolvesAfterKeepFiringFor() throws IOException {
    AlertState end = run(AlertState.empty(), POLICY, FIRE_THEN_RECOVER, null);
    assertThat(end.alerts()).isEmpty();
  }

  @Test
  void aCeilingFiresAboveItsLineHoldsThroughHysteresisAndNeverOnIdle() throws IOException {
    Policy both =
        qwen()
            .acceptanceRate(
                new Threshold(
                    Threshold.Direction.ABOVE, 0.97, OptionalDouble.of(0.95), Optional.empty()))
            .build();
    String fire = "firing qwen/acceptance_rate_above";
    AlertState end =
        run(
            AlertState.empty(),
            both,
            List.of(
                row(0, OK, 0.90, ""),
                row(30, BREACH, 0.99, ""), // pending
                row(60, RecipeState.IDLE, null, ""), // idle: no verdict, pending frozen
                row(150, BREACH, 0.99, fire), // 120 s past the line in all
                row(180, OK, 0.96, ""), // under the line, not yet below clear_below 0.95
                row(210, OK, 0.90, ""), // clear; keep_firing_for starts
                row(330, OK, 0.90, "resolved qwen/acceptance_rate_above"),
                row(360, OK, 0.40, ""), // the floor's own pending, not the ceiling's
                row(480, OK, 0.40, FIRE)));
    assertThat(end.alerts()).hasSize(1);
  }

  @Test
  void aFiringAndItsRecoverySayWhenTheServersKIsNotThePolicys() {
    AlertState state = AlertState.empty();
    List<String> reasons = new ArrayList<>();
    // k moved 3 -> 5 while acceptance fell; back at 3 on recovery, where k agrees (nothing said).
    Object[][] rows = {
      {0L, BREACH, 0.40, new ActiveK.Reading(3, 5, true, true, "g - 1")},
      {150L, BREACH, 0.40, new ActiveK.Reading(5, 5, true, true, "g - 1")},
      {180L, OK, 0.60, new ActiveK.Reading(3, 3, true, true, "g - 1")},
      {330L, OK, 0.60, new ActiveK.Reading(3, 3, true, true, "g - 1")},
    };
    for (Object[] r : rows) {
      Evaluation e =
          evaluation((Long) r[0], (RecipeState) r[1], (Double) r[2], Optional.empty(), 5000.0);
      RecipeSnapshot s = e.recipes().get(0);
      SignalForm form = new SignalForm(false, SignalForm.EXPORTED, List.of());
      s = s.withForm(form.withK((ActiveK.Reading) r[3], 3));
      AlertEngine.Step step =
          engine.step(
              state,
              List.of(POLICY),
              new Evaluation(e.evaluatedAt(), WINDOW, List.of(s), 7),
              List.of());
      state = step.state();
      step.transitions().forEach(t -> reasons.add(t.kind() + " " + t.reason()));
    }
    assertThat(reasons)
        .containsExactly(
            "FIRING acceptance_rate 0.400 below 0.450; the servers run k = 5, the policy says 3",
            "RESOLVED recovered: acceptance_rate 0.600 above 0.500");
  }

  @Test
  void onlyTheSpeedupRuleSaysItsVerdictAndThatItMayBeConfounded() {
    // The form says what the speed-up reading is and that it may be the traffic's; acceptance is
    // not a comparison of two deployments, so its firing says neither (SpeedupIT: the speedup
    // rule's does).
    AlertState state = AlertState.empty();
    List<String> reasons = new ArrayList<>();
    for (long at : new long[] {0, 150}) {
      Evaluation e = evaluation(at, BREACH, 0.40, Optional.empty(), 5000.0);
      RecipeSnapshot s =
          e.recipes()
              .get(0)
              .withForm(
                  new SignalForm(false, SignalForm.EXPORTED, List.of())
                      .withSpeedup(
                          "breaks even (1.02× per request at 4–7 running requests, 95 % 0.97–1.07)",
                          "may be confounded: the two sides' requests differ"));
      assertThat(s.form().get().notes())
          .containsExactly(
              "the speed-up at the load it ran lately breaks even (1.02× per request at 4–7"
                  + " running requests, 95 % 0.97–1.07)",
              "the speed-up may be confounded: the two sides' requests differ");
      AlertEngine.Step step =
          engine.step(
              state,
              List.of(POLICY),
              new Evaluation(e.evaluatedAt(), WINDOW, List.of(s), 7),
              List.of());
      state = step.state();
      step.transitions().forEach(t -> reasons.add(t.kind() + " " + t.reason()));
    }
    assertThat(reasons).containsExactly("FIRING acceptance_rate 0.400 below 0.450");
  }

  @Test
  void pendingThatClearsNeverNotifies() throws IOException {
    run(
        AlertState.empty(),
        POLICY,
        List.of(
            row(0, BREACH, 0.40, ""),
            row(60, OK, 0.46, ""),
            row(120, BREACH, 0.40, ""),
            row(200, BREACH, 0.40, ""),
            row(240, BREACH, 0.40, FIRE)),
        null);
  }

  @Test
  void idleLowTrafficAndNoDataFreezeTheState() throws IOException {
    run(
        AlertState.empty(),
        POLICY,
        List.of(
            row(0, BREACH, 0.40, ""),
            row(60, RecipeState.IDLE, null, ""),
            row(
                300,
                RecipeState.LOW_TRAFFIC,
                0.10,
                ""), // pending does not advance without a verdict
            row(320, BREACH, 0.40, FIRE),
            row(400, RecipeState.IDLE, null, ""), // firing does not resolve while idle...
            row(1800, RecipeState.NO_DATA, null, ""),
            row(3900, BREACH, 0.40, ""), // ...nor re-fire when traffic returns
            row(4000, RecipeState.IDLE, null, ""),
            row(7590, RecipeState.IDLE, null, ""), // 59m50s idle
            row(7620, RecipeState.IDLE, null, RESOLVE))); // idle_resolve_after (1h) elapsed
  }

  @Test
  void datasourceErrorFreezesAlertsAndFiresOneDatasourceAlert() throws IOException {
    run(
        AlertState.empty(),
        POLICY,
        List.of(
            row(0, BREACH, 0.40, ""),
            row(120, BREACH, 0.40, FIRE),
            row(150, RecipeState.ERROR, null, ""),
            row(240, RecipeState.ERROR, null, ""),
            row(270, RecipeState.ERROR, null, "firing specwatch/datasource_unavailable"),
            row(9000, RecipeState.ERROR, null, ""), // errors never resolve an alert by time
            row(9030, OK, 0.60, "resolved specwatch/datasource_unavailable"),
            row(9150, OK, 0.60, RESOLVE)));
  }

  @Test
  void restartInEveryStateKeepsTimersAndNeverRepeatsANotification(@TempDir Path dir)
      throws IOException {
    StateStore store = new FileStateStore(dir, Clock.fixed(T0, ZoneOffset.UTC));
    // Same table as the in-memory run, but the state goes through the file before every step:
    // inactive, pending, firing, clearing and resolved all survive a restart.
    run(AlertState.empty(), POLICY, FIRE_THEN_RECOVER, store);
  }

  @Test
  void queuedTransitionsSurviveARestart(@TempDir Path dir) throws IOException {
    StateStore store = new FileStateStore(dir, Clock.fixed(T0, ZoneOffset.UTC));
    AlertEngine.Step step =
        engine.step(
            AlertState.empty(),
            List.of(
                Policy.builder("qwen", Map.of("model_name", "q"), 3)
                    .forDuration(Duration.ZERO)
                    .acceptanceRate(Threshold.below(0.45))
                    .build()),
            evaluation(0, BREACH, 0.4, Optional.empty(), 5000.0),
            List.of());
    store.save(step.state().withQueued(step.transitions()));
    AlertState reloaded = store.load();
    assertThat(reloaded.queued()).containsExactlyElementsOf(step.transitions());
    assertThat(reloaded.alerts().get("qwen/acceptance_rate").phase()).isEqualTo(AlertPhase.FIRING);
    assertThat(reloaded.nextSequence()).isEqualTo(2);
  }

  @Test
  void aCorruptStateFileIsMovedAsideAndNothingCrashes(@TempDir Path dir) throws IOException {
    FileStateStore store = new FileStateStore(dir, Clock.fixed(T0, ZoneOffset.UTC));
    Files.writeString(store.file(), "{\"version\": 1, \"alerts\": {tru");
    assertThat(store.load()).isEqualTo(AlertState.emptyAt(T0));
    assertThat(Files.exists(dir.resolve("alerts.json.corrupt-20261130T120000Z"))).isTrue();
    assertThat(Files.exists(store.file())).isFalse();
  }

  @Test
  void silencedAlertsKeepStateAndNotifyWhenTheSilenceEnds() {
    Silence silence =
        new Silence("s1", "qw*", Optional.empty(), T0, T0.plusSeconds(200), "maintenance", "test");
    AlertState state = AlertState.empty();
    List<String> seen = new ArrayList<>();
    long[] times = {0, 130, 250, 400, 530};
    double[] values = {0.4, 0.4, 0.4, 0.6, 0.6};
    for (int i = 0; i < times.length; i++) {
      AlertEngine.Step step =
          engine.step(
              state,
              List.of(POLICY),
              evaluation(
                  times[i], values[i] < 0.45 ? BREACH : OK, values[i], Optional.empty(), 5000.0),
              List.of(silence));
      state = step.state();
      seen.add(describe(step.transitions()));
    }
    assertThat(seen).containsExactly("", FIRE + " silenced", FIRE, "", RESOLVE);
  }

  @Test
  void maintenanceWindowInThePolicySilencesToo() {
    Policy maintained =
        Policy.builder("qwen", Map.of("model_name", "q"), 3)
            .forDuration(Duration.ZERO)
            .acceptanceRate(Threshold.below(0.45))
            .maintenance(List.of(new Policy.Maintenance.Window(T0, T0.plusSeconds(60), "upgrade")))
            .build();
    AlertEngine.Step step =
        engine.step(
            AlertState.empty(),
            List.of(maintained),
            evaluation(10, BREACH, 0.3, Optional.empty(), 5000.0),
            List.of());
    assertThat(describe(step.transitions())).isEqualTo(FIRE + " silenced");
  }

  @Test
  void aRecurringMaintenanceWindowSilencesItsHoursOnItsDaysOnly() {
    // 12:00 to 12:03 UTC on Mondays; T0 is Monday 2026-11-30 12:00.
    Policy nightly =
        qwen()
            .maintenance(
                List.of(
                    new Policy.Maintenance.Recurring(
                        new TimeInterval(
                            List.of(new TimeInterval.Range(720, 723)),
                            List.of(new TimeInterval.Range(1, 1)),
                            List.of(),
                            List.of(),
                            List.of(),
                            ZoneOffset.UTC),
                        "batch job")))
            .build();
    long[] times = {0, 130, 250, 400, 530};
    double[] values = {0.4, 0.4, 0.4, 0.6, 0.6};
    for (long day : new long[] {0, 1, 7}) {
      AlertState state = AlertState.empty();
      List<String> seen = new ArrayList<>();
      for (int i = 0; i < times.length; i++) {
        long t = day * 86_400 + times[i];
        AlertEngine.Step step =
            engine.step(
                state,
                List.of(nightly),
                evaluation(t, values[i] < 0.45 ? BREACH : OK, values[i], Optional.empty(), 5000.0),
                List.of());
        state = step.state();
        seen.add(describe(step.transitions()));
      }
      // Mondays: the firing waits for the window's end, then is notified (silence ended);
      // Tuesday: notified as it fires.
      assertThat(seen)
          .as("day %d", day)
          .containsExactly(
              "", day % 7 == 0 ? FIRE + " silenced" : FIRE, day % 7 == 0 ? FIRE : "", "", RESOLVE);
    }
  }

  @Test
  void regressionNeedsARealDropAndStatisticalSignificance() {
    Policy.Regression rule =
        new Policy.Regression(0.15, Duration.ofDays(7), 3.0, 10_000, Optional.empty());
    Optional<Baseline> baseline =
        Optional.of(new Baseline(Duration.ofDays(7), 0.80, 2_000_000.0, null, null));
    // 20 % drop at normal traffic (9000 drafts in the window): z ~ 48, fires.
    assertThat(kind(new RegressionRule(rule, Severity.WARNING).judge(values(0.64, 9000), baseline)))
        .isEqualTo("BREACHED");
    // The same 20 % drop on 20 drafts: z ~ 2.2, noise, does not fire.
    assertThat(kind(new RegressionRule(rule, Severity.WARNING).judge(values(0.64, 20), baseline)))
        .isEqualTo("CLEAR");
    // A 5 % dip at normal traffic is significant but below max_relative_drop.
    assertThat(kind(new RegressionRule(rule, Severity.WARNING).judge(values(0.76, 9000), baseline)))
        .isEqualTo("CLEAR");
    // A thin baseline gives no verdict.
    assertThat(
            kind(
                new RegressionRule(rule, Severity.WARNING)
                    .judge(
                        values(0.5, 9000),
                        Optional.of(new Baseline(Duration.ofDays(7), 0.8, 500.0, null, null)))))
        .isEqualTo("UNKNOWN");
  }

  @Test
  void regressionCountsTheBaselinesOwnSpreadAsNoise() {
    Policy.Regression rule =
        new Policy.Regression(0.1, Duration.ofDays(1), 3.0, 10_000, Optional.empty());
    RegressionRule regression = new RegressionRule(rule, Severity.WARNING);
    // A 20 % drop at 9000 drafts: binomially z ~ 38, but the window value wanders with sd 0.1
    // on its own over the baseline, so the drop is z = 1.6: noise, no page.
    Optional<Baseline> noisy =
        Optional.of(new Baseline(Duration.ofDays(1), 0.80, 2_000_000.0, null, null, 0.1));
    assertThat(kind(regression.judge(values(0.64, 9000), noisy))).isEqualTo("CLEAR");
    // With a spread of 0.05 the same drop is z = 3.2: it fires, and says how it was judged.
    Optional<Baseline> calm =
        Optional.of(new Baseline(Duration.ofDays(1), 0.80, 2_000_000.0, null, null, 0.05));
    Verdict v = regression.judge(values(0.64, 9000), calm);
    assertThat(kind(v)).isEqualTo("BREACHED");
    assertThat(v.reason()).contains("z=3.2");
  }

  @Test
  void throughputPerRunningRequestAgainstBaseline() {
    Policy.Throughput rule = new Policy.Throughput(0.3, Duration.ofDays(7), Optional.empty());
    Optional<Baseline> baseline =
        Optional.of(new Baseline(Duration.ofDays(7), null, null, 1000.0, 10.0)); // 100/request
    SignalValues collapsed = new SignalValues(0.8, 3.4, List.of(), 1.0, 1.0, 600.0, 9000.0, 10.0);
    SignalValues fine = new SignalValues(0.8, 3.4, List.of(), 1.0, 1.0, 900.0, 9000.0, 10.0);
    assertThat(kind(new ThroughputRule(rule, Severity.WARNING).judge(collapsed, baseline)))
        .isEqualTo("BREACHED");
    assertThat(kind(new ThroughputRule(rule, Severity.WARNING).judge(fine, baseline)))
        .isEqualTo("CLEAR");
  }

  @Test
  void everyTransitionCarriesReasonValueThresholdWindowAndSince() {
    AlertState state = AlertState.empty();
    state =
        engine
            .step(
                state,
                List.of(POLICY),
                evaluation(0, BREACH, 0.4, Optional.empty(), 5000.0),
                List.of())
            .state();
    Transition t =
        engine
            .step(
                state,
                List.of(POLICY),
                evaluation(120, BREACH, 0.41, Optional.empty(), 5000.0),
                List.of())
            .transitions()
            .get(0);
    assertThat(t.reason()).isEqualTo("acceptance_rate 0.410 below 0.450");
    assertThat(t.value()).isEqualTo(0.41);
    assertThat(t.threshold()).isEqualTo(0.45);
    assertThat(t.window()).isEqualTo(WINDOW);
    assertThat(t.since()).isEqualTo(T0);
    assertThat(t.at()).isEqualTo(T0.plusSeconds(120));
    assertThat(t.severity()).isEqualTo(dev.specwatch.model.Severity.WARNING);
  }

  private static SignalValues values(double acceptance, double drafts) {
    return new SignalValues(acceptance, 1 + 3 * acceptance, List.of(), 1.0, 1.0, 1.0, drafts, null);
  }

  private static String kind(Object verdict) {
    return verdict.toString().replaceAll("^Verdict\\[kind=([A-Z]+),.*", "$1");
  }
}
