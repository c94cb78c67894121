package dev.specwatch.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.detect.DropTest;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.signals.EvaluationJson;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusViewsTest {
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  @Test
  void detectorsShowEachModelOrWhyThereIsNoneAndEachTest() throws Exception {
    NoiseModel m =
        new NoiseModel(
                null, 0.6, 2, 1e-4, 4e-4, 900, Duration.ofDays(7), 2016, T0, "wanders over 4h")
            .withShortExcursions(
                List.of(
                    new NoiseModel.ShortExcursion(Duration.ofMinutes(10), -0.12),
                    new NoiseModel.ShortExcursion(Duration.ofMinutes(2), -0.31)));
    AlertState state =
        withLearned(
            Map.of(
                "qwen",
                new RecipeModel(m, "learned from 7.0 days", T0, Duration.ofSeconds(30)),
                "new",
                new RecipeModel(
                    null, "learning: 6h of active history, needs 24h", T0, Duration.ofSeconds(30))),
            Map.of(
                "qwen/change",
                new DropTest.State(
                        List.of(9.0, 1.0, 0.0), List.of(0.0), true, T0, T0, 510, 1000, 600, T0)
                    .clearSince(T0.plusSeconds(600))));
    JsonNode json = detectorsJson(state);
    JsonNode fresh = json.get("detectors").get(0);
    assertThat(fresh.get("recipe").asText()).isEqualTo("new");
    assertThat(fresh.get("status").asText()).isEqualTo("learning: 6h of active history, needs 24h");
    assertThat(fresh.get("level").isNull()).isTrue();
    assertThat(fresh.get("tests")).isEmpty();
    assertThat(fresh.get("model_in_doubt").isNull()).isTrue();
    assertThat(fresh.get("short_excursions").isNull()).isTrue();
    JsonNode qwen = json.get("detectors").get(1);
    assertThat(qwen.get("level").asDouble()).isEqualTo(0.6);
    assertThat(qwen.get("wander").asDouble()).isCloseTo(0.02, within(1e-9));
    assertThat(qwen.get("model_in_doubt").asText()).isEqualTo("wanders over 4h");
    // Shortest first, by the length users write in the config.
    assertThat(qwen.get("short_excursions").toString()).isEqualTo("{\"2m\":-0.31,\"10m\":-0.12}");
    JsonNode test = qwen.get("tests").get(0);
    assertThat(test.get("id").asText()).isEqualTo("qwen/change");
    assertThat(test.get("alarmed").asBoolean()).isTrue();
    assertThat(test.get("since").asText()).isEqualTo("2026-12-01T10:00:00Z");
    assertThat(test.get("observed").asDouble()).isEqualTo(0.51);
    assertThat(test.get("expected").asDouble()).isEqualTo(0.6);
    // Back above the clear line since then: the change rule resolves 30 minutes after it.
    assertThat(test.get("clear_since").asText()).isEqualTo("2026-12-01T10:10:00Z");
  }

  @Test
  void eachTestIsListedUnderItsOwnRecipeOnlyInIdOrder() throws Exception {
    RecipeModel learning = new RecipeModel(null, "learning", T0, Duration.ofSeconds(30));
    DropTest.State quiet = DropTest.State.initial(3);
    AlertState state =
        withLearned(
            Map.of("team-a", learning, "team-a/qwen", learning, "other", learning),
            Map.of(
                "team-a/qwen/change", quiet,
                "team-a/change", quiet,
                "team-a/qwen/acceptance_rate", quiet,
                "gone/change", quiet));
    JsonNode json = detectorsJson(state);
    Map<String, List<String>> tests = new java.util.TreeMap<>();
    json.get("detectors")
        .forEach(
            d -> {
              List<String> ids = new java.util.ArrayList<>();
              d.get("tests").forEach(t -> ids.add(t.get("id").asText()));
              tests.put(d.get("recipe").asText(), ids);
            });
    assertThat(tests)
        .containsExactly(
            Map.entry("other", List.of()),
            Map.entry("team-a", List.of("team-a/change")),
            Map.entry("team-a/qwen", List.of("team-a/qwen/acceptance_rate", "team-a/qwen/change")));
  }

  private static AlertState withLearned(
      Map<String, RecipeModel> models, Map<String, DropTest.State> detectors) {
    return new AlertState(AlertState.VERSION, Map.of(), null, 1, List.of(), models, detectors);
  }

  private static JsonNode detectorsJson(AlertState state) throws Exception {
    return new ObjectMapper()
        .readTree(EvaluationJson.MAPPER.writeValueAsString(StatusViews.detectors(state)));
  }
}
