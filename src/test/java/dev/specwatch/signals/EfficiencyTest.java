package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EfficiencyTest {
  @Test
  void conditionalAcceptanceRejectedTokensAndTheShareOfOutputFromDrafts() {
    // k=3, 100 drafts/s, positions accepted 80, 60, 30 times: 170 accepted of 300 drafted, and
    // 100 steps emit one more token each: 270 tokens/s, 170 of them drafts.
    SignalValues s =
        new SignalValues(
            170 / 300.0, 2.7, List.of(0.8, 0.6, 0.3), 300.0, 170.0, 270.0, 6000.0, 4.0);
    assertThat(s.conditionalAcceptance().get(0)).isCloseTo(0.8, within(1e-12));
    assertThat(s.conditionalAcceptance().get(1)).isCloseTo(0.75, within(1e-12));
    assertThat(s.conditionalAcceptance().get(2)).isCloseTo(0.5, within(1e-12));
    assertThat(s.rejectedDraftTokensPerSecond()).isCloseTo(130, within(1e-9));
    assertThat(s.outputShareFromDrafts()).isCloseTo(170 / 270.0, within(1e-12));
  }

  @Test
  void unknownOrNeverAcceptedPositionsGiveNoNumberRatherThanADivisionByZero() {
    SignalValues s =
        new SignalValues(0.0, 1.0, Arrays.asList(0.0, 0.0, null), 300.0, null, 0.0, 6000.0, 4.0);
    assertThat(s.conditionalAcceptance()).containsExactly(0.0, null, null);
    assertThat(s.rejectedDraftTokensPerSecond()).isNull();
    assertThat(s.outputShareFromDrafts()).isNull();
    assertThat(EvaluationJson.efficiency(SignalValues.empty(2)))
        .containsEntry("rejected_draft_tokens_per_second", null)
        .containsEntry("output_share_from_drafts", null);
  }
}
