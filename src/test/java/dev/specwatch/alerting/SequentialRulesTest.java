package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.detect.NoiseModel;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Increments;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SignalValues;
import dev.specwatch.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sequential rules inside the engine: evaluation steps of counter increments, a learned model
 * in the state, the test statistics saved and reloaded before every step (as across restarts).
 */
class SequentialRulesTest {
  static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");
  static final Duration STEP = Duration.ofSeconds(30);
  @TempDir Path dir;

  private final AlertEngine engine =
      new AlertEngine(new SpecwatchConfig.Alerting(Duration.ofHours(1), Duration.ofMinutes(2)));

  static final NoiseModel MODEL =
      new NoiseModel(null, 0.6, 2.0, 0.0001, 0.0002, 900, Duration.ofDays(7), 2016, T0);

  static Evaluation step(Instant at, RecipeState state, double accepted, double draftTokens) {
    SignalValues v = new SignalValues(0.6, 2.8, List.of(), 30.0, 18.0, 40.0, 3000.0, 10.0);
    RecipeSnapshot s =
        new RecipeSnapshot("qwen", "vllm", state, v, List.of(), Optional.empty(), Optional.empty())
            .withIncrements(
                new Increments(
                    STEP,
                    draftTokens,
                    accepted,
                    draftTokens / 3,
                    List.of(accepted / 2, accepted / 3, accepted / 6)));
    return new Evaluation(at, Duration.ofMinutes(5), List.of(s), 7);
  }

  private List<Transition> run(Policy policy, AlertState start, List<Evaluation> steps)
      throws IOException {
    FileStateStore store = new FileStateStore(dir, new MutableClock(T0));
    store.save(start);
    List<Transition> out = new ArrayList<>();
    for (Evaluation e : steps) {
      AlertState state = store.load(); // every step as after a restart
      AlertEngine.Step s = engine.step(state, List.of(policy), e, List.of());
      store.save(s.state());
      out.addAll(s.transitions());
    }
    return out;
  }

  private static AlertState learned() {
    return AlertState.empty()
        .withModels(Map.of("qwen", new RecipeModel(MODEL, "learned from 7d", T0, STEP)));
  }

  @Test
  void aModelsRecordOfShortExcursionsSurvivesARestartAndAnOlderModelReadsWithoutOne()
      throws IOException {
    NoiseModel spiky =
        MODEL.withShortExcursions(
            List.of(
                new NoiseModel.ShortExcursion(Duration.ofMinutes(2), -0.31),
                new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.12)));
    FileStateStore store = new FileStateStore(dir, new MutableClock(T0));
    store.save(
        AlertState.empty()
            .withModels(
                Map.of(
                    "spiky", new RecipeModel(spiky, "learned", T0, STEP),
                    "qwen", new RecipeModel(MODEL, "learned", T0, STEP))));
    Map<String, RecipeModel> loaded = new FileStateStore(dir, new MutableClock(T0)).load().models();
    assertThat(loaded.get("spiky").model()).isEqualTo(spiky);
    assertThat(loaded.get("spiky").model().shortExcursionDepth(Duration.ofMinutes(6), 0.1))
        .isCloseTo(-0.215, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(loaded.get("qwen").model().shortExcursions()).isNull();
  }

  @Test
  void changeFiresOnASustainedDropWithItsEstimateAndClearsWhenTheLevelIsBack() throws IOException {
    Policy policy =
        Policy.builder("qwen", Map.of("model_name", "q"), 3)
            .forDuration(Duration.ZERO)
            .keepFiringFor(Duration.ofMinutes(1))
            .change(
                new Policy.Change(0.1, Duration.ofDays(30), Duration.ofDays(7), Optional.empty()))
            .build();
    SplittableRandom random = new SplittableRandom(5);
    List<Evaluation> steps = new ArrayList<>();
    for (int i = 0; i < 240; i++) {
      // Healthy 1 h, dropped 15 % for 30 min, back for 30 min.
      double level = i >= 120 && i < 180 ? 0.51 : 0.6;
      double noisy = level + Math.sqrt(MODEL.variance(level, 900)) * gaussian(random);
      Instant at = T0.plus(STEP.multipliedBy(i));
      steps.add(step(at, RecipeState.OK, (double) Math.round(noisy * 900), 900));
    }
    List<Transition> t = run(policy, learned(), steps);
    assertThat(t)
        .extracting(Transition::kind)
        .containsExactly(Transition.Kind.FIRING, Transition.Kind.RESOLVED);
    Transition firing = t.get(0);
    Instant dropAt = T0.plus(STEP.multipliedBy(120));
    assertThat(firing.rule()).isEqualTo("change");
    assertThat(firing.at()).isAfter(dropAt).isBefore(dropAt.plus(Duration.ofMinutes(15)));
    assertThat(firing.reason())
        .startsWith("change: acceptance 0.5")
        .contains("against its learned 0.600")
        .contains("at most one false alarm per 30d");
    assertThat(t.get(1).at()).isAfter(T0.plus(STEP.multipliedBy(180)));
  }

  @Test
  void changeGivesNoVerdictWithoutAModelAndFreezesOnIdleSteps() throws IOException {
    Policy policy =
        Policy.builder("qwen", Map.of("model_name", "q"), 3)
            .forDuration(Duration.ZERO)
            .change(
                new Policy.Change(0.1, Duration.ofDays(30), Duration.ofDays(7), Optional.empty()))
            .build();
    AlertState learning =
        AlertState.empty()
            .withModels(
                Map.of(
                    "qwen",
                    new RecipeModel(null, "learning: 6h of active history, needs 24h", T0, STEP)));
    List<Evaluation> dropped = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      dropped.add(step(T0.plus(STEP.multipliedBy(i)), RecipeState.OK, 0.3 * 900, 900));
    }
    assertThat(run(policy, learning, dropped)).as("no model, no verdict").isEmpty();
    Rule.Judged j =
        new ChangeRule(policy.thresholds().change().get(), policy.notification().severity())
            .judge(
                dropped.get(0).recipes().get(0),
                new Rule.Context(T0, learning.models().get("qwen"), null));
    assertThat(j.verdict().kind()).isEqualTo(Verdict.Kind.UNKNOWN);
    assertThat(j.verdict().reason()).isEqualTo("learning: 6h of active history, needs 24h");

    // Idle steps carry no evidence: the statistics do not move.
    List<Evaluation> idle = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      idle.add(step(T0.plus(STEP.multipliedBy(i)), RecipeState.IDLE, 0, 0));
    }
    assertThat(run(policy, learned(), idle)).isEmpty();
    assertThat(new FileStateStore(dir, new MutableClock(T0)).load().detectors()).isEmpty();
  }

  @Test
  void sequentialThresholdsFireOnEvidenceAndResolveSymmetrically() throws IOException {
    Policy policy =
        Policy.builder("qwen", Map.of("model_name", "q"), 3)
            .forDuration(Duration.ZERO)
            .keepFiringFor(Duration.ofSeconds(10))
            .acceptanceRate(new Threshold(0.3, OptionalDouble.empty(), Optional.empty()))
            .detection(new Policy.Detection(Policy.Detection.Mode.SEQUENTIAL, Duration.ofDays(30)))
            .build();
    List<Evaluation> steps = new ArrayList<>();
    Duration fiveSeconds = Duration.ofSeconds(5);
    for (int i = 0; i < 60; i++) {
      // 0.39 for 100 s, halved for 100 s, back; 600 draft tokens per 5 s step.
      double level = i >= 20 && i < 40 ? 0.195 : 0.39;
      Instant at = T0.plus(fiveSeconds.multipliedBy(i));
      Evaluation e = step(at, RecipeState.OK, (double) Math.round(level * 600), 600);
      RecipeSnapshot s = e.recipes().get(0);
      Increments inc = s.increments().get();
      steps.add(
          new Evaluation(
              at,
              e.window(),
              List.of(
                  s.withIncrements(
                      new Increments(
                          fiveSeconds,
                          inc.draftTokens(),
                          inc.acceptedTokens(),
                          inc.drafts(),
                          inc.acceptedPerPosition()))),
              7));
    }
    List<Transition> t = run(policy, AlertState.empty(), steps);
    assertThat(t)
        .extracting(Transition::kind)
        .containsExactly(Transition.Kind.FIRING, Transition.Kind.RESOLVED);
    Instant drop = T0.plus(fiveSeconds.multipliedBy(20));
    Instant back = T0.plus(fiveSeconds.multipliedBy(40));
    assertThat(t.get(0).at()).isBetween(drop, drop.plusSeconds(10));
    assertThat(t.get(0).reason()).startsWith("acceptance_rate 0.195 below 0.300 since");
    assertThat(t.get(1).at()).isBetween(back.plusSeconds(10), back.plusSeconds(25));
  }

  static double gaussian(SplittableRandom random) {
    double u = random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
  }
}
