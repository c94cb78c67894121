package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Policy;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.Sample;
import java.time.Instant;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Numbers no engine can produce are an {@code error} with the reason. Before, NaN and +Inf drafts
 * read as {@code no_data}, negative ones as {@code idle}, and an acceptance of 900 % as {@code ok}.
 */
class BadDataTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
  private static final Policy P =
      Policy.builder("qwen", Map.of("job", "vllm", "model_name", "q"), 3)
          .minDrafts(10)
          .acceptanceRate(Threshold.below(0.45))
          .build();

  private static RecipeSnapshot snapshot(Map<Signal, Double> values) {
    Map<QueryKey, Map<Policy, List<Sample>>> results = new HashMap<>();
    values.forEach(
        (signal, value) -> {
          IdentityHashMap<Policy, List<Sample>> m = new IdentityHashMap<>();
          m.put(P, List.of(new Sample(Map.of("job", "vllm", "model_name", "q"), NOW, value)));
          results.put(new QueryKey(signal, null), m);
        });
    return Snapshots.snapshot(P, results, null, null);
  }

  @Test
  void impossibleNumbersAreAnErrorWithTheReason() {
    RecipeSnapshot over =
        snapshot(
            Map.of(
                Signal.DRAFTS_IN_WINDOW, 1000.0,
                Signal.ACCEPTANCE_RATE, 9.0,
                Signal.DRAFT_TOKENS_PER_SECOND, 10.0,
                Signal.ACCEPTED_TOKENS_PER_SECOND, 90.0));
    assertThat(over.state()).isEqualTo(RecipeState.ERROR);
    assertThat(over.error())
        .hasValueSatisfying(
            e ->
                assertThat(e)
                    .startsWith("impossible numbers from the datasource: acceptance rate 9.000")
                    .contains("more tokens accepted than drafted"));
    assertThat(over.breaches()).isEmpty();
    RecipeSnapshot inf = snapshot(Map.of(Signal.DRAFTS_IN_WINDOW, Double.POSITIVE_INFINITY));
    assertThat(inf.state()).as("was no_data").isEqualTo(RecipeState.ERROR);
    assertThat(inf.error())
        .hasValueSatisfying(e -> assertThat(e).contains("drafts in window +Inf"));
    RecipeSnapshot nan = snapshot(Map.of(Signal.DRAFTS_IN_WINDOW, Double.NaN));
    assertThat(nan.state()).as("was no_data").isEqualTo(RecipeState.ERROR);
    RecipeSnapshot negative =
        snapshot(Map.of(Signal.DRAFTS_IN_WINDOW, -500.0, Signal.ACCEPTANCE_RATE, -5.0));
    assertThat(negative.state()).as("was idle").isEqualTo(RecipeState.ERROR);
    assertThat(negative.error())
        .hasValueSatisfying(e -> assertThat(e).contains("drafts in window -500.000"));
  }

  @Test
  void whatEnginesDoProduceStaysAsItWas() {
    // Idle: no drafts, the ratio 0 / 0 is NaN (or absent): idle, not an error.
    assertThat(
            snapshot(Map.of(Signal.DRAFTS_IN_WINDOW, 0.0, Signal.ACCEPTANCE_RATE, Double.NaN))
                .state())
        .isEqualTo(RecipeState.IDLE);
    assertThat(
            snapshot(
                    Map.of(
                        Signal.DRAFTS_IN_WINDOW, 1000.0,
                        Signal.ACCEPTANCE_RATE, 0.3,
                        Signal.DRAFT_TOKENS_PER_SECOND, 100.0))
                .state())
        .isEqualTo(RecipeState.BREACH);
    assertThat(
            snapshot(Map.of(Signal.DRAFTS_IN_WINDOW, 1000.0, Signal.ACCEPTANCE_RATE, 1.0)).state())
        .isEqualTo(RecipeState.OK);
    assertThat(snapshot(Map.of()).state()).isEqualTo(RecipeState.NO_DATA);
  }

  @Test
  void anSglangAcceptanceAboveOneNamesThePolicysK() {
    Policy sglang =
        Policy.builder("ds", Map.of("job", "sglang", "model_name", "d"), 2)
            .engine(dev.specwatch.model.Engine.SGLANG)
            .minDrafts(10)
            .build();
    Map<QueryKey, Map<Policy, List<Sample>>> results = new HashMap<>();
    for (Map.Entry<Signal, Double> e :
        Map.of(Signal.DRAFTS_IN_WINDOW, 1000.0, Signal.ACCEPTANCE_RATE, 1.5).entrySet()) {
      IdentityHashMap<Policy, List<Sample>> m = new IdentityHashMap<>();
      m.put(
          sglang,
          List.of(new Sample(Map.of("job", "sglang", "model_name", "d"), NOW, e.getValue())));
      results.put(new QueryKey(e.getKey(), null), m);
    }
    RecipeSnapshot s = Snapshots.snapshot(sglang, results, null, null);
    assertThat(s.state()).isEqualTo(RecipeState.ERROR);
    assertThat(s.error())
        .hasValueSatisfying(
            e ->
                assertThat(e)
                    .startsWith("acceptance rate 1.500 above 1: num_speculative_tokens (2)"));
  }
}
