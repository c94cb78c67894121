package dev.specwatch.advisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadScheduleTest {
  private static SpeedupByLoad.Bucket bucket(int min, int max, double speedup) {
    return new SpeedupByLoad.Bucket(
        min, max, 2, 2, speedup, speedup * 0.98, speedup * 1.02, 1.0, 1.0, "pays", null);
  }

  @Test
  void theDraftCostComesFromTheMeasurementAndTheBestKFollowsFromIt() {
    // Acceptance 0.8, 0.6, 0.4 (E_3 = 2.8). Measured 2.0x at load 1: c = (2.8 / 2 - 1) / 3 =
    // 0.1333,
    // then S_1 = 1.8 / 1.133 = 1.59, S_2 = 2.4 / 1.267 = 1.89, S_3 = 2.0: k = 3.
    // Measured 0.9x at 32-63: c = (2.8 / 0.9 - 1) / 3 = 0.7037, S_1 = 1.8 / 1.704 = 1.056 > 1,
    // S_2 = 2.4 / 2.407 = 0.997, S_3 = 0.9: k = 1.
    List<Double> a = List.of(0.8, 0.6, 0.4);
    SpeedupByLoad.Result measured =
        new SpeedupByLoad.Result(
            List.of(bucket(1, 1, 2.0), bucket(4, 7, 1.3), bucket(32, 63, 0.9)), 7);
    List<LoadSchedule.Entry> s = LoadSchedule.schedule(measured, Map.of(0, a, 2, a, 5, a), 3);
    assertThat(s).hasSize(3);
    assertThat(s.get(0).k()).isEqualTo(3);
    assertThat(s.get(0).draftCost()).isCloseTo(0.4 / 3, within(1e-9));
    assertThat(s.get(0).expectedSpeedup()).isCloseTo(2.0, within(1e-9));
    assertThat(s.get(2).k()).isEqualTo(1);
    assertThat(s.get(2).expectedSpeedup()).isCloseTo(1.8 / (1 + (2.8 / 0.9 - 1) / 3), within(1e-9));
    // With a poor first position speculation is off: a_0 = 0.2 and measured 0.8x at k=1.
    List<LoadSchedule.Entry> off =
        LoadSchedule.schedule(
            new SpeedupByLoad.Result(List.of(bucket(8, 15, 0.8)), null),
            Map.of(3, List.of(0.2)),
            1);
    assertThat(off.get(0).k()).isZero();
    assertThat(off.get(0).expectedSpeedup()).isEqualTo(1.0);
  }

  @Test
  void writtenInTheShapesVllmAndTensorRtLlmAccept() {
    List<LoadSchedule.Entry> s =
        List.of(
            new LoadSchedule.Entry(1, 1, 3, 1.9, 1.9, 0.1),
            new LoadSchedule.Entry(2, 3, 3, 1.8, 1.8, 0.1),
            new LoadSchedule.Entry(4, 7, 2, 1.5, 1.5, 0.2),
            new LoadSchedule.Entry(16, 31, 0, 1.0, 0.9, 0.9));
    // Inclusive ranges, equal neighbours merged; the gap 8-15 inherits the previous k in vLLM.
    assertThat(LoadSchedule.vllm(s))
        .containsExactly(new int[] {1, 3, 3}, new int[] {4, 7, 2}, new int[] {16, 31, 0});
    assertThat(LoadSchedule.trtllm(s))
        .containsExactly(Map.entry(1, 3), Map.entry(4, 2), Map.entry(16, 0));
  }

  @Test
  void bucketsWithoutANumberOrPositionsGetNoAdvice() {
    SpeedupByLoad.Result measured =
        new SpeedupByLoad.Result(
            List.of(
                new SpeedupByLoad.Bucket(
                    1, 1, 0.1, 0.1, null, null, null, null, null, "too_little_data", "few"),
                bucket(2, 3, 1.5)),
            3);
    assertThat(LoadSchedule.schedule(measured, Map.of(), 3)).isEmpty();
    assertThat(LoadSchedule.schedule(measured, Map.of(0, List.of(0.8, 0.6, 0.4)), 3)).isEmpty();
  }

  @Test
  void theOneKForAllTheLoadIsTheHoursWeightedBestOfTheSamePredictions() {
    // The same buckets as above: k = 3 at load 1, 1 at 32-63. With most hours at load 1 the one
    // k is 3; with most at 32-63 it is 1; in between the weighted means decide.
    List<Double> a = List.of(0.8, 0.6, 0.4);
    Map<Integer, List<Double>> positions = Map.of(0, a, 5, a);
    for (double[] hours : new double[][] {{10, 1}, {1, 10}, {1, 1}, {3, 2}}) {
      SpeedupByLoad.Result measured =
          new SpeedupByLoad.Result(
              List.of(
                  new SpeedupByLoad.Bucket(
                      1, 1, hours[0], 1, 2.0, 1.9, 2.1, 1.0, 1.0, "pays", null),
                  new SpeedupByLoad.Bucket(
                      32, 63, hours[1], 1, 0.9, 0.85, 0.95, 1.0, 1.0, "costs", null)),
              1);
      List<LoadSchedule.Entry> byLoad = LoadSchedule.schedule(measured, positions, 3);
      LoadSchedule.Overall one = LoadSchedule.overall(measured, positions, 3);
      // Recompute from the schedule's own cost per bucket: the k with the best weighted mean.
      double best = -1;
      int bestK = -1;
      for (int j = 0; j <= 3; j++) {
        double sum = 0;
        for (int b = 0; b < 2; b++) {
          double c = byLoad.get(b).draftCost();
          double length = 1;
          for (int i = 0; i < j; i++) {
            length += a.get(i);
          }
          sum += hours[b] * (j == 0 ? 1 : length / (1 + j * c));
        }
        if (sum / (hours[0] + hours[1]) > best + 1e-12) {
          best = sum / (hours[0] + hours[1]);
          bestK = j;
        }
      }
      assertThat(one.k()).as("hours %s", java.util.Arrays.toString(hours)).isEqualTo(bestK);
      assertThat(one.expectedSpeedup()).isCloseTo(best, within(1e-9));
      assertThat(one.measuredSpeedup())
          .isCloseTo((2.0 * hours[0] + 0.9 * hours[1]) / (hours[0] + hours[1]), within(1e-9));
      assertThat(one.hours()).isCloseTo(hours[0] + hours[1], within(1e-9));
    }
    assertThat(
            LoadSchedule.overall(
                    new SpeedupByLoad.Result(List.of(bucket(1, 1, 2.0), bucket(32, 63, 0.9)), 1),
                    Map.of(0, a, 5, a),
                    3)
                .k())
        .as("equal hours")
        .isBetween(1, 3);
    assertThat(LoadSchedule.overall(new SpeedupByLoad.Result(List.of(), null), Map.of(), 3))
        .isNull();
  }
}
