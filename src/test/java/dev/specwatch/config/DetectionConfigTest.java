package dev.specwatch.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.yaml.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DetectionConfigTest {
  @TempDir Path dir;

  private SpecwatchConfig load(String policy) throws IOException {
    return load(dir, policy);
  }

  /** The config of one policy file, {@code alerts/p.yaml}, written under {@code dir}. */
  static SpecwatchConfig load(Path dir, String policy) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(dir.resolve("alerts/p.yaml"), policy);
    Files.writeString(
        dir.resolve("specwatch.yaml"),
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n");
    return new ConfigLoader(k -> null).load(dir.resolve("specwatch.yaml"));
  }

  @Test
  void readsSequentialDetectionAndTheChangeRuleWithDefaults() throws IOException {
    Policy p =
        load("""
                recipe: q
                match: {model_name: q}
                num_speculative_tokens: 3
                detection: sequential
                false_alarm_interval: 14d
                thresholds:
                  acceptance_rate: {below: 0.3}
                  change: {min_relative_drop: 0.1}
                """)
            .policies()
            .get(0);
    assertThat(p.detection().sequential()).isTrue();
    assertThat(p.detection().falseAlarmInterval()).isEqualTo(Duration.ofDays(14));
    Policy.Change c = p.thresholds().change().orElseThrow();
    assertThat(c.minRelativeDrop()).isEqualTo(0.1);
    assertThat(c.falseAlarmInterval()).isEqualTo(Duration.ofDays(30));
    assertThat(c.learn()).isEqualTo(Duration.ofDays(7));
    assertThat(p.usesIncrements()).isTrue();
  }

  @Test
  void everyDetectionMistakeIsReportedWithItsKey() throws IOException {
    assertThatThrownBy(
            () ->
                load(
                    """
                    recipe: q
                    engine: sglang
                    match: {model_name: q}
                    num_speculative_tokens: 3
                    detection: sequentail
                    false_alarm_interval: 5m
                    thresholds:
                      change: {learn: 2h, false_alarm_interval: 10m}
                    """))
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e -> {
              String all = e.getMessage();
              assertThat(all)
                  .contains(":5:12: detection: one of window (the rate window) or sequential")
                  .contains(":6:23: false_alarm_interval: must be at least 1h")
                  .contains("thresholds.change.min_relative_drop: is required")
                  .contains(":8:19: thresholds.change.learn: must be from 1d to 35d")
                  .contains("thresholds.change.false_alarm_interval: must be at least 1h")
                  .contains(
                      "thresholds.change: not for sglang: needs a step's own drafts and accepted"
                          + " tokens; SGLang's tokenizer counts a request's tokens and verify calls"
                          + " when it finishes, so a step holds whole requests, not the step");
            });
  }
}
