package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.recipes.Suggestion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code policies suggest} replays the policy with the suggested lines and every other rule it has:
 * the speed-up rule was dropped (the six-argument Thresholds constructor has none), and the
 * ceilings must not be either.
 */
class SuggestKeepsEveryRuleTest {
  @TempDir Path dir;

  @Test
  void theSpeedupRuleSurvivesTheSuggestedLines() throws Exception {
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        alerts.resolve("mtp.yaml"),
        "recipe: mtp\nmatch: {model_name: q}\nnum_speculative_tokens: 3\n"
            + "speedup_baseline: plain\n"
            + "thresholds: {acceptance_rate: {below: 0.5, above: 0.98, clear_below: 0.95},"
            + " mean_accepted_length: {above: 3.9}, speedup: {below: 1.1}}\n");
    Files.writeString(
        alerts.resolve("plain.yaml"),
        "recipe: plain\nmatch: {model_name: q-plain}\nnum_speculative_tokens: 0\n");
    Path config =
        Files.writeString(
            dir.resolve("specwatch.yaml"),
            "prometheus: {url: \"http://127.0.0.1:9\"}\npolicies: alerts\n");
    SpecwatchConfig c = new ConfigLoader(k -> null).load(config);
    Policy mtp = c.policies().get(0);
    assertThat(mtp.thresholds().speedup()).isPresent();

    Suggestion.Proposal proposal =
        new Suggestion.Proposal(
            48, new Suggestion.Line(0.62, 0.66, 0.7, 0.72, 0.8, 48), null, Map.of());
    Policy.Thresholds suggested = SuggestCommand.thresholds(proposal, mtp);
    assertThat(suggested.acceptanceRate().orElseThrow().level()).isEqualTo(0.62);
    assertThat(suggested.speedup()).isEqualTo(mtp.thresholds().speedup());
    // The ceilings are kept in the replay and in what --write puts in the file.
    assertThat(suggested.ceilings()).isEqualTo(mtp.thresholds().ceilings());
    assertThat(Suggestion.yaml(proposal, mtp.thresholds().ceilings()))
        .isEqualTo(
            "thresholds:\n"
                + "  acceptance_rate: {below: 0.62, clear_above: 0.66, above: 0.98,"
                + " clear_below: 0.95}\n"
                + "  mean_accepted_length: {above: 3.9}\n");
  }
}
