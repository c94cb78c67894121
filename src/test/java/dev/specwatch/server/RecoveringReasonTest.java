package dev.specwatch.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.model.Threshold;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * A recipe back above its line while its alert still fires (hysteresis) said so, instead of "ok ·
 * every threshold met" beside a firing alert.
 */
class RecoveringReasonTest {
  final Policy policy =
      Policy.builder("qwen", Map.of("job", "vllm", "model_name", "q"), 3)
          .acceptanceRate(new Threshold(0.45, OptionalDouble.of(0.5), Optional.empty()))
          .build();

  @Test
  void aFiringAlertAboveItsLineSaysWhereItClears() {
    ActiveAlert firing = firing("acceptance_rate", 0.48, 0.45);
    assertThat(WebPages.recovering(List.of(firing), policy))
        .hasValue("firing · recovering: acceptance rate 48.0 %, clears above 50.0 %");
  }

  @Test
  void aFiringCeilingSaysItClearsBelowAndTheRowShowsBothLines() {
    Policy both =
        Policy.builder("qwen", Map.of("job", "vllm", "model_name", "q"), 3)
            .acceptanceRate(new Threshold(0.45, OptionalDouble.of(0.5), Optional.empty()))
            .acceptanceRate(
                new Threshold(
                    Threshold.Direction.ABOVE, 0.98, OptionalDouble.of(0.95), Optional.empty()))
            .build();
    ActiveAlert firing = firing("acceptance_rate_above", 0.97, 0.98);
    assertThat(WebPages.recovering(List.of(firing), both))
        .hasValue("firing · recovering: acceptance rate too high 97.0 %, clears below 95.0 %");
    assertThat(
            WebPages.signals(
                    new dev.specwatch.signals.RecipeSnapshot(
                        "qwen",
                        "vllm",
                        dev.specwatch.signals.RecipeState.OK,
                        new dev.specwatch.signals.SignalValues(
                            0.97, 3.91, List.of(0.99, 0.97, 0.95), 10.0, 9.7, 30.0, 900.0, 4.0),
                        List.of(),
                        Optional.empty(),
                        Optional.empty()),
                    both)
                .get(0))
        .containsEntry("name", "acceptance rate")
        .containsEntry(
            "threshold", "below 45.0 %, clears above 50.0 %; above 98.0 %, clears below 95.0 %");
  }

  @Test
  void aFiringChangeAlertSaysWhenItClears() {
    ActiveAlert firing = firing("change", 0.51, 0.54);
    assertThat(WebPages.recovering(List.of(firing), policy))
        .hasValue(
            "firing · recovering: acceptance (learned change detection) 51.0 %, clears once the"
                + " window holds at or above halfway between its floor and its learned level for"
                + " 30m, or sooner on the evidence");
  }

  /**
   * The recipe's alert of {@code rule}, firing since 10:00 at {@code value} against {@code
   * threshold}.
   */
  private static ActiveAlert firing(String rule, double value, double threshold) {
    return ActiveAlert.firing(
        AlertKey.of("qwen", rule, null),
        Severity.WARNING,
        Instant.parse("2026-12-03T10:00:00Z"),
        value,
        threshold);
  }

  @Test
  void nothingFiringSaysNothing() {
    assertThat(WebPages.recovering(List.of(), policy)).isEmpty();
  }
}
