package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What check, the UI and the API say when the servers' k is not the policy's. */
class ActiveKTest {
  private static final String POSITIONS = "the positions of vllm:x";

  @Test
  void anExactKThatAgreesSaysNothingAndOneThatDiffersSaysWhatToSet() {
    ActiveK.Reading five = new ActiveK.Reading(5, 5, true, false, POSITIONS);
    assertThat(five.note(5)).isEmpty();
    assertThat(five.note(3))
        .hasValue(
            "k mismatch: the servers run k = 5 (the positions of vllm:x), the policy says"
                + " num_speculative_tokens: 3; set it to 5");
    assertThat(five.note(7)).isPresent();
  }

  @Test
  void aLowerBoundDisagreesOnlyWhenDraftsGoBeyondThePolicy() {
    ActiveK.Reading seen = new ActiveK.Reading(3, 3, false, false, POSITIONS);
    assertThat(seen.note(3)).isEmpty();
    // Drafts shorter than k (llama.cpp's, or a position not yet reached) are no mismatch.
    assertThat(seen.note(5)).isEmpty();
    assertThat(seen.note(2))
        .hasValue(
            "k mismatch: drafts reach 3 tokens (the positions of vllm:x), beyond the policy's"
                + " num_speculative_tokens: 2; set it to at least 3");
  }

  @Test
  void aKThatMovedWithinTheWindowIsSaidWithHowTheFiguresTookIt() {
    ActiveK.Reading gauge = new ActiveK.Reading(3, 5, true, true, "g - 1");
    assertThat(gauge.note(5))
        .hasValue(
            "k changed within the window: the servers ran k from 3 to 5 (g - 1), the policy's"
                + " num_speculative_tokens is 5; the figures divide by the servers' k averaged"
                + " over the window");
    ActiveK.Reading positions = new ActiveK.Reading(3, 5, true, false, POSITIONS);
    assertThat(positions.note(5).orElseThrow())
        .endsWith("the engine may pick k itself, and figures that divide by k use 5");
  }

  @Test
  void anAlertsReasonGetsTheShortForm() {
    assertThat(new ActiveK.Reading(3, 5, true, true, "g").brief(5))
        .hasValue("the servers' k moved between 3 and 5 in the window, the policy's is 5");
    assertThat(new ActiveK.Reading(4, 4, false, false, POSITIONS).brief(3))
        .hasValue("drafts reach 4 tokens, beyond the policy's k of 3");
    assertThat(new ActiveK.Reading(2, 2, false, false, POSITIONS).brief(3)).isEmpty();
    assertThat(new ActiveK.Reading(3, 3, true, false, POSITIONS).brief(3)).isEmpty();
  }

  @Test
  void aGroupAsksOnceForTheLowestAndHighestOrForThePositionCount() {
    QueryScope scope =
        new QueryScope(
            java.util.List.of("job", "model_name"),
            java.util.List.of(),
            java.time.Duration.ofMinutes(5));
    assertThat(ActiveK.gauge("g", -1, "g - 1").query(scope))
        .contains("max by (job, model_name) (max_over_time(g")
        .contains("min by (job, model_name) (min_over_time(g")
        .contains("\"k_bound\", \"min\"");
    assertThat(ActiveK.positions("p", "position", true).query(scope))
        .startsWith(
            "label_replace(count by (job, model_name) (group by (job, model_name, position)")
        .contains("last_over_time(p");
  }
}
