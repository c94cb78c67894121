package dev.specwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The bench's interval on false-alarm counts: Garwood's exact Poisson interval. */
class GarwoodTest {
  @Test
  void matchesTheTabulatedExactIntervals() {
    // Published 95 % limits for a Poisson count (e.g. Ulm 1990; Garwood 1936).
    assertThat(DetectionBench.garwood(0)[0]).isEqualTo(0.0);
    assertThat(DetectionBench.garwood(0)[1]).isCloseTo(3.689, within(0.001));
    assertThat(DetectionBench.garwood(1)[0]).isCloseTo(0.0253, within(0.0001));
    assertThat(DetectionBench.garwood(1)[1]).isCloseTo(5.572, within(0.001));
    assertThat(DetectionBench.garwood(5)[0]).isCloseTo(1.624, within(0.001));
    assertThat(DetectionBench.garwood(5)[1]).isCloseTo(11.668, within(0.001));
  }
}
