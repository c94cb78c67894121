package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** discover's starter line: a quarter under what was observed, clearing just above it. */
class StarterThresholdTest {
  @Test
  void theLineSitsAQuarterUnderTheObservedAcceptanceAndClearsAbove() {
    assertThat(DiscoverCommand.starterBelow(0.84)).isEqualTo(0.63);
    assertThat(DiscoverCommand.starter(0.84))
        .isEqualTo("thresholds:\n  acceptance_rate: {below: 0.63, clear_above: 0.68}\n");
    // A low acceptance: the clear line never passes what was observed.
    assertThat(DiscoverCommand.starter(0.05))
        .isEqualTo("thresholds:\n  acceptance_rate: {below: 0.03, clear_above: 0.05}\n");
  }
}
