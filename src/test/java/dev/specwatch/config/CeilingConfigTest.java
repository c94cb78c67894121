package dev.specwatch.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.ThresholdReading;
import dev.specwatch.yaml.InvalidInputException;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code above:} on acceptance and accepted length: a line the value must stay under. */
class CeilingConfigTest {
  @TempDir Path dir;

  private SpecwatchConfig load(String policy) throws IOException {
    return DetectionConfigTest.load(dir, policy);
  }

  @Test
  void aFloorAndACeilingOnOneSignalAndACeilingAlone() throws IOException {
    Policy p =
        load("""
                recipe: q
                match: {model_name: q}
                num_speculative_tokens: 3
                thresholds:
                  acceptance_rate: {below: 0.5, clear_above: 0.55, above: 0.97, clear_below: 0.95}
                  mean_accepted_length: {above: 3.9, severity: critical}
                """)
            .policies()
            .get(0);
    Policy.Thresholds t = p.thresholds();
    assertThat(t.acceptanceRate().orElseThrow().level()).isEqualTo(0.5);
    Threshold ceiling = t.ceilings().acceptanceRate().orElseThrow();
    assertThat(ceiling.direction()).isEqualTo(Threshold.Direction.ABOVE);
    assertThat(ceiling.level()).isEqualTo(0.97);
    assertThat(ceiling.clearLevel()).isEqualTo(0.95);
    assertThat(ceiling.breachedBy(0.98)).isTrue();
    assertThat(ceiling.breachedBy(0.96)).isFalse();
    assertThat(ceiling.clearedBy(0.96)).isFalse();
    assertThat(ceiling.clearedBy(0.94)).isTrue();
    assertThat(t.meanAcceptedLength()).isEmpty();
    assertThat(t.ceilings().meanAcceptedLength().orElseThrow().level()).isEqualTo(3.9);
    assertThat(ThresholdReading.of(p).stream().map(ThresholdReading::rule))
        .containsExactly("acceptance_rate", "acceptance_rate_above", "mean_accepted_length_above");
  }

  @Test
  void everyMistakeInALineIsReportedWithItsKey() throws IOException {
    assertThatThrownBy(
            () ->
                load(
                    """
                    recipe: q
                    match: {model_name: q}
                    num_speculative_tokens: 3
                    thresholds:
                      acceptance_rate: {below: 0.6, above: 0.5}
                      mean_accepted_length: {above: 3.5, clear_below: 3.8}
                      position_acceptance:
                        "0": {above: 0.99}
                    """))
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .contains(
                        ":5:40: thresholds.acceptance_rate.above: must be higher than 'below'"
                            + " (0.6)")
                    .contains(
                        ":6:51: thresholds.mean_accepted_length.clear_below: must be at most"
                            + " 'above' (3.5)")
                    .contains(":8:10: thresholds.position_acceptance.0.below: is required")
                    .contains(":8:11: thresholds.position_acceptance.0.above: unknown key"));
  }
}
