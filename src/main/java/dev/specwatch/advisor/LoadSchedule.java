package dev.specwatch.advisor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which k to run at each load (docs/SPEEDUP.md, "Advice by load"), from what was measured in each
 * bucket of running requests: the speed-up S at the current k and the acceptance by position.
 *
 * <p>A step with j draft tokens costs the target model more than a step without: its time relative
 * to a plain step is modelled as 1 + j·c, linear in j (the verified tokens and the draft positions
 * grow with j). The measurement gives c: the speculative step at the current k emits E_k tokens a
 * request and the measured speed-up is S = E_k / (1 + k·c), so c = (E_k / S − 1) / k. Then any j ≤
 * k is predicted as S_j = E_j / (1 + j·c) with E_j = 1 + Σ_{i<j} a_i, and j = 0 (no speculation) as
 * 1. The schedule takes the best j per bucket; it does not extrapolate beyond the current k.
 */
public final class LoadSchedule {
  private LoadSchedule() {}

  /**
   * One bucket's advice.
   *
   * @param k the draft tokens to run there; 0 turns speculation off
   * @param expectedSpeedup S_k predicted for that k
   * @param measuredSpeedup the speed-up measured at the current k
   * @param draftCost c, the cost of one draft token relative to a plain step, from the measurement
   */
  public record Entry(
      int runningMin,
      int runningMax,
      int k,
      double expectedSpeedup,
      double measuredSpeedup,
      double draftCost) {}

  /**
   * @param positionsByLoad acceptance by position per bucket index, at the current k
   */
  public static List<Entry> schedule(
      SpeedupByLoad.Result measured, Map<Integer, List<Double>> positionsByLoad, int currentK) {
    List<Entry> out = new ArrayList<>();
    for (SpeedupByLoad.Bucket b : measured.byLoad()) {
      List<Double> a = positionsByLoad.get(SpeedupByLoad.bucketOf(b.runningMin()));
      if (b.speedup() == null
          || a == null
          || a.size() < currentK
          || a.stream().anyMatch(java.util.Objects::isNull)) {
        continue;
      }
      double[] length = new double[currentK + 1];
      length[0] = 1;
      for (int j = 1; j <= currentK; j++) {
        length[j] = length[j - 1] + a.get(j - 1);
      }
      double cost = Math.max(0, (length[currentK] / b.speedup() - 1) / currentK);
      int best = 0;
      double bestSpeedup = 1;
      for (int j = 1; j <= currentK; j++) {
        double s = length[j] / (1 + j * cost);
        if (s > bestSpeedup) {
          best = j;
          bestSpeedup = s;
        }
      }
      out.add(new Entry(b.runningMin(), b.runningMax(), best, bestSpeedup, b.speedup(), cost));
    }
    return List.copyOf(out);
  }

  /**
   * vLLM's {@code num_speculative_tokens_per_batch_size}: inclusive {@code [start, end, k]} ranges
   * of the scheduled batch size (vllm/config/speculative.py); consecutive buckets with the same k
   * merged. Batch sizes after the last range inherit its k.
   */
  public static List<int[]> vllm(List<Entry> schedule) {
    List<int[]> out = new ArrayList<>();
    for (Entry e : schedule) {
      int[] last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && last[2] == e.k() && last[1] + 1 >= e.runningMin()) {
        last[1] = e.runningMax();
      } else {
        out.add(new int[] {e.runningMin(), e.runningMax(), e.k()});
      }
    }
    return out;
  }

  /**
   * TensorRT-LLM's {@code draft_len_schedule}: batch-size thresholds to draft lengths ({@code
   * batch_size >= threshold}; tensorrt_llm/llmapi/llm_args.py), changes only.
   */
  public static Map<Integer, Integer> trtllm(List<Entry> schedule) {
    Map<Integer, Integer> out = new java.util.LinkedHashMap<>();
    Integer previous = null;
    for (Entry e : schedule) {
      if (previous == null || previous != e.k()) {
        out.put(e.runningMin(), e.k());
        previous = e.k();
      }
    }
    return out;
  }
}
