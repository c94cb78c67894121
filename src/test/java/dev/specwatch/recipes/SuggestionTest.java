package dev.specwatch.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SuggestionTest {
  /** 0.50, 0.51, ..., 0.99: p5 and p10 by hand. */
  static List<Double> hundredHours() {
    List<Double> v = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      v.add(0.50 + i * 0.01);
      v.add(0.50 + i * 0.01);
    }
    return v;
  }

  @Test
  void percentilesInterpolateLikeNumpy() {
    // numpy.percentile([1, 2, 3, 4], [5, 50, 90]) = 1.15, 2.5, 3.7
    List<Double> v = List.of(4.0, 1.0, 3.0, 2.0);
    assertThat(Suggestion.percentile(v, 0.05)).isCloseTo(1.15, within(1e-12));
    assertThat(Suggestion.percentile(v, 0.5)).isCloseTo(2.5, within(1e-12));
    assertThat(Suggestion.percentile(v, 0.9)).isCloseTo(3.7, within(1e-12));
  }

  @Test
  void linesSitTenPercentUnderTheFifthPercentileWithHysteresis() {
    List<Double> hours = hundredHours();
    hours.add(Double.NaN); // an idle hour is not a value
    Suggestion.Proposal p =
        Suggestion.propose(hours, List.of(), Map.of(0, hundredHours(), 1, List.of(0.3)));
    assertThat(p.enough()).isTrue();
    assertThat(p.hours()).isEqualTo(100);
    double p5 = Suggestion.percentile(hundredHours(), 0.05); // 0.52: index 4.95 of 100
    assertThat(p.acceptance().p5()).isCloseTo(p5, within(1e-12));
    assertThat(p.acceptance().below()).isEqualTo(Math.floor(p5 * 0.9 * 100) / 100); // 0.46
    assertThat(p.acceptance().clearAbove()).isGreaterThan(p.acceptance().below());
    assertThat(p.acceptance().clearAbove()).isLessThanOrEqualTo(p.acceptance().p10());
    assertThat(p.meanAcceptedLength()).as("no length hours").isNull();
    assertThat(p.positions()).as("position 1 has one hour only").containsOnlyKeys(0);
    assertThat(Suggestion.yaml(p))
        .isEqualTo(
            "thresholds:\n  acceptance_rate: {below: 0.46, clear_above: 0.54}\n"
                + "  position_acceptance:\n    \"0\": {below: 0.46}\n");
  }

  @Test
  void theAcceptedLengthLineIsMeasuredFromOne() {
    List<Double> len = hundredHours().stream().map(v -> 1 + 4 * v).toList(); // 3.0 .. 4.96
    Suggestion.Proposal p = Suggestion.propose(hundredHours(), len, Map.of());
    double p5 = Suggestion.percentile(len, 0.05);
    assertThat(p.meanAcceptedLength().below())
        .isEqualTo(Math.floor((1 + (p5 - 1) * 0.9) * 100 + 1e-9) / 100);
  }

  @Test
  void underADayOfHoursWithDraftsThereIsNoProposal() {
    Suggestion.Proposal p = Suggestion.propose(hundredHours().subList(0, 23), List.of(), Map.of());
    assertThat(p.enough()).isFalse();
    assertThat(p.hours()).isEqualTo(23);
  }

  @Test
  void writingThresholdsReplacesTheStaticLinesAndKeepsEverythingElse() {
    String policy =
        """
        # mine
        recipe: q
        thresholds:
          acceptance_rate: {below: 0.3}   # old
          position_acceptance:
            "2": {below: 0.1}
          change: {min_relative_drop: 0.10}
        for: 10m
        """;
    String out =
        PolicyWriter.withThresholds(
            policy, "thresholds:\n  acceptance_rate: {below: 0.47, clear_above: 0.53}\n");
    assertThat(out)
        .isEqualTo(
            """
            # mine
            recipe: q
            thresholds:
              acceptance_rate: {below: 0.47, clear_above: 0.53}
              change: {min_relative_drop: 0.10}
            for: 10m
            """);
    assertThatThrownBy(() -> PolicyWriter.withThresholds("thresholds: {x: 1}\n", "thresholds:\n"))
        .hasMessageContaining("inline");
  }
}
