package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.detect.DropTest;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.QueryResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The learner's documented schedule (docs/DETECTION.md): at most {@link Learner#BUDGET} recipes
 * tried per evaluation whether the datasource answers, rejects or is down; models refreshed every
 * {@link Learner#RELEARN} only while the recipe's tests are quiet; too little history retried after
 * {@link Learner#RETRY}. The datasource is a stub that records which recipe each range query is
 * for: what is tested is which queries the learner sends, not what Prometheus answers (the learning
 * itself runs against a real Prometheus in ChangeDetectionIT).
 */
class LearnerScheduleTest {
  private static final Instant AT = Instant.parse("2026-11-30T12:00:00Z");
  private static final Duration STEP = Duration.ofSeconds(30);
  private static final Pattern RECIPE = Pattern.compile("model_name=\"(r\\d+)\"");
  @TempDir Path dir;

  /** Range queries by recipe, and the failure to answer with (none: an empty matrix). */
  private final List<String> asked = new ArrayList<>();

  private final AtomicReference<PrometheusException> failure = new AtomicReference<>();

  private final PrometheusApi api =
      new PrometheusApi() {
        @Override
        public QueryResult query(String promql, Optional<Instant> time) {
          throw new AssertionError("the learner sends range queries only: " + promql);
        }

        @Override
        public QueryResult queryRange(String promql, Instant start, Instant end, Duration step)
            throws PrometheusException {
          Matcher m = RECIPE.matcher(promql);
          assertThat(m.find()).as(promql).isTrue();
          asked.add(m.group(1));
          if (failure.get() != null) {
            throw failure.get();
          }
          return new QueryResult.Matrix(List.of(), List.of());
        }
      };

  @Test
  void aFleetWithTooLittleHistoryIsTriedFourAtATimeAndRetriedAfterAnHour() throws IOException {
    List<Policy> fleet = fleet(10);
    Learner learner = new Learner(api);
    AlertState state = AlertState.empty();
    List<Set<String>> rounds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      asked.clear();
      Map<String, RecipeModel> learned =
          learner.learn(fleet, state, STEP, AT.plus(STEP.multipliedBy(i)));
      state = state.withModels(learned);
      rounds.add(new LinkedHashSet<>(asked));
      assertThat(asked).hasSize(4 * learned.size());
      assertThat(learned.values()).allMatch(m -> m.model() == null);
    }
    assertThat(rounds.get(0)).containsExactly("r0", "r1", "r2", "r3");
    assertThat(rounds.get(1)).containsExactly("r4", "r5", "r6", "r7");
    assertThat(rounds.get(2)).containsExactly("r8", "r9");
    assertThat(rounds.get(3)).as("nothing is due before the retry").isEmpty();

    asked.clear();
    Instant justBefore = AT.plus(Learner.RETRY).minusSeconds(1);
    assertThat(learner.learn(fleet, state, STEP, justBefore)).isEmpty();
    assertThat(asked).isEmpty();
    assertThat(learner.learn(fleet, state, STEP, AT.plus(Learner.RETRY)).keySet())
        .containsExactly("r0", "r1", "r2", "r3");
  }

  @Test
  void aDatasourceThatRejectsEveryQueryStillCostsAtMostFourQueriesAnEvaluationAndNoRecipeStarves()
      throws IOException {
    List<Policy> fleet = fleet(10);
    Learner learner = new Learner(api);
    failure.set(
        new PrometheusException(
            PrometheusException.Kind.QUERY, 422, "exceeded maximum resolution of 11,000 points"));
    Set<String> tried = new LinkedHashSet<>();
    for (int i = 0; i < 3; i++) {
      asked.clear();
      assertThat(learner.learn(fleet, AlertState.empty(), STEP, AT.plus(STEP.multipliedBy(i))))
          .isEmpty();
      // The first query of each recipe fails, so one query a recipe tried.
      assertThat(asked).hasSize(Learner.BUDGET).doesNotHaveDuplicates();
      tried.addAll(asked);
    }
    assertThat(tried).as("every recipe tried within three evaluations").hasSize(10);

    // Once the datasource answers, four recipes learn an evaluation again.
    failure.set(null);
    asked.clear();
    assertThat(learner.learn(fleet, AlertState.empty(), STEP, AT.plus(STEP.multipliedBy(3))))
        .hasSize(Learner.BUDGET);
  }

  @Test
  void anOutageEndsTheRoundAtTheFirstQuery() throws IOException {
    List<Policy> fleet = fleet(10);
    Learner learner = new Learner(api);
    failure.set(
        new PrometheusException(PrometheusException.Kind.TRANSPORT, 0, "connect timed out"));
    for (int i = 0; i < 3; i++) {
      asked.clear();
      assertThat(learner.learn(fleet, AlertState.empty(), STEP, AT.plus(STEP.multipliedBy(i))))
          .isEmpty();
      assertThat(asked).hasSize(1);
    }
  }

  @Test
  void aModelIsRelearnedAfterSixHoursOnlyWhileItsTestsAreQuiet() throws IOException {
    List<Policy> fleet = fleet(2);
    Learner learner = new Learner(api);
    Map<String, RecipeModel> models = new HashMap<>();
    for (String r : List.of("r0", "r1")) {
      models.put(r, new RecipeModel(model(), "learned", AT, STEP));
    }
    AlertState quiet = AlertState.empty().withModels(models);
    DropTest.State inExcursion =
        new DropTest.State(
            List.of(1.5),
            List.of(0.0),
            false,
            AT.plus(Learner.RELEARN).minusSeconds(60),
            null,
            0,
            0,
            0,
            null);
    AlertState oneInExcursion =
        withTests(quiet, Map.of(AlertKey.of("r1", "change", null).id(), inExcursion));

    Instant before = AT.plus(Learner.RELEARN).minusSeconds(1);
    assertThat(learner.learn(fleet, quiet, STEP, before)).isEmpty();
    assertThat(asked).isEmpty();

    Instant after = AT.plus(Learner.RELEARN);
    assertThat(learner.learn(fleet, quiet, STEP, after).keySet()).containsExactly("r0", "r1");
    assertThat(learner.learn(fleet, oneInExcursion, STEP, after).keySet())
        .as("a drop in progress is never learned as normal")
        .containsExactly("r0");
    DropTest.State alarmed =
        new DropTest.State(List.of(0.0), List.of(0.0), true, null, null, 0, 0, 0, null);
    AlertState oneAlarmedAtAPosition =
        withTests(
            quiet,
            Map.of(
                AlertKey.of("r0", "acceptance_rate", 2).id(),
                alarmed,
                AlertKey.of("r1", "change", null).id(),
                DropTest.State.initial(1)));
    assertThat(learner.learn(fleet, oneAlarmedAtAPosition, STEP, after).keySet())
        .as("nor while one of its tests (a position's too) stands alarmed")
        .containsExactly("r1");

    asked.clear();
    assertThat(learner.learn(fleet, quiet, Duration.ofMinutes(1), before).keySet())
        .as("a changed evaluation step relearns at once")
        .containsExactly("r0", "r1");
  }

  /** {@code state}'s models with these tests. */
  private static AlertState withTests(AlertState state, Map<String, DropTest.State> tests) {
    return new AlertState(AlertState.VERSION, Map.of(), null, 1, List.of(), state.models(), tests);
  }

  private static NoiseModel model() {
    return new NoiseModel(null, 0.6, 1.2, 0, 0.0004, 400, Duration.ofDays(7), 2016, AT, null);
  }

  private List<Policy> fleet(int n) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    for (int i = 0; i < n; i++) {
      Files.writeString(
          dir.resolve("alerts/r" + i + ".yaml"),
          """
          recipe: r%d
          match: {model_name: r%d}
          num_speculative_tokens: 3
          thresholds:
            change: {min_relative_drop: 0.1}
          """
              .formatted(i, i));
    }
    Files.writeString(
        dir.resolve("specwatch.yaml"),
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n");
    List<Policy> policies =
        new ArrayList<>(new ConfigLoader(k -> null).load(dir.resolve("specwatch.yaml")).policies());
    policies.sort(
        java.util.Comparator.comparingInt(p -> Integer.parseInt(p.recipe().substring(1))));
    return policies;
  }
}
