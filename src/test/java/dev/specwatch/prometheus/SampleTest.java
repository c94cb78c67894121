package dev.specwatch.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SampleTest {
  private static final Instant AT = Instant.parse("2026-12-01T00:00:00Z");

  @Test
  void withoutTheMatchedLabelsKeepsTheOthersTheTimeAndTheValue() {
    Sample plain = new Sample(Map.of("job", "vllm", "model_name", "m"), AT, 0.8);
    Sample position =
        new Sample(Map.of("job", "vllm", "model_name", "m", "position", "2"), AT, 0.7);
    Sample two =
        new Sample(
            Map.of("job", "vllm", "model_name", "m", "position", "2", "k_bound", "max"), AT, 3);
    List<String> matched = List.of("job", "model_name");

    assertThat(plain.without(matched)).isEqualTo(new Sample(Map.of(), AT, 0.8));
    assertThat(position.without(matched)).isEqualTo(new Sample(Map.of("position", "2"), AT, 0.7));
    assertThat(two.without(matched))
        .isEqualTo(new Sample(Map.of("position", "2", "k_bound", "max"), AT, 3));
    // nothing to drop: the same sample
    assertThat(position.without(List.of("instance"))).isSameAs(position);
    // a matched label the series lacks drops nothing else
    assertThat(plain.without(List.of("job", "namespace")))
        .isEqualTo(new Sample(Map.of("model_name", "m"), AT, 0.8));
  }
}
