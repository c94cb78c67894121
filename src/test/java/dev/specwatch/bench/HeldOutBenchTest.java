package dev.specwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeldOutBenchTest {
  @Test
  void aListOfFamiliesSelectsWholeNamesCommasInThemIncluded() {
    String only = "long-memory wander, weekly, trend, heavy tails,a nightly evaluation harness";
    assertThat(HeldOutBench.selected("weekly, trend, heavy tails", only)).isTrue();
    assertThat(HeldOutBench.selected("long-memory wander", only)).isTrue();
    assertThat(HeldOutBench.selected("a nightly evaluation harness", only)).isTrue();
    // A name not in the list, and part of a name, are not selected.
    assertThat(HeldOutBench.selected("regime switching", only)).isFalse();
    assertThat(HeldOutBench.selected("long-memory", only)).isFalse();
    assertThat(HeldOutBench.selected("evaluation harness", only)).isFalse();
    // Every family of the bench is selected by its own name.
    for (HeldOutBench.Family f : HeldOutBench.FAMILIES) {
      assertThat(HeldOutBench.selected(f.name(), f.name())).as(f.name()).isTrue();
    }
    // Without a list, every family not held back.
    assertThat(HeldOutBench.selected("regime switching", "")).isTrue();
  }
}
