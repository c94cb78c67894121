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
      Prediction p = predicted(b, positionsByLoad, currentK);
      if (p == null) {
        continue;
      }
      int best = best(p.speedup);
      out.add(
          new Entry(b.runningMin(), b.runningMax(), best, p.speedup[best], b.speedup(), p.cost));
    }
    return List.copyOf(out);
  }

  /**
   * One k for all the load a recipe ran, for a deployment that cannot change k with the batch size:
   * the j that maximises the predicted speed-up averaged over the measured buckets, each weighted
   * by the hours it ran (the same predictions as {@link #schedule}, so the two never disagree about
   * a bucket).
   *
   * @param expectedSpeedup the hours-weighted mean of S_k
   * @param measuredSpeedup the hours-weighted mean of the speed-up measured at the current k
   */
  public record Overall(int k, double expectedSpeedup, double measuredSpeedup, double hours) {
    /**
     * What the advice stands on, in the words of the recipe page and the digest: "the speed-up
     * measured by load over the week: expected 1.44× at k=2, measured 1.41× at k=3, averaged over
     * 24.0 hours".
     */
    public String basis(String over, int currentK) {
      return String.format(
          java.util.Locale.ROOT,
          "the speed-up measured by load over %s: expected %.2f× at k=%d, measured %.2f× at k=%d,"
              + " averaged over %.1f hours",
          over,
          expectedSpeedup,
          k,
          measuredSpeedup,
          currentK,
          hours);
    }
  }

  /** {@link Overall}, or null when no bucket has both a speed-up and acceptance by position. */
  public static Overall overall(
      SpeedupByLoad.Result measured, Map<Integer, List<Double>> positionsByLoad, int currentK) {
    double[] sum = new double[currentK + 1];
    double hours = 0;
    double measuredSum = 0;
    for (SpeedupByLoad.Bucket b : measured.byLoad()) {
      Prediction p = predicted(b, positionsByLoad, currentK);
      if (p == null || b.hours() <= 0) {
        continue;
      }
      for (int j = 0; j <= currentK; j++) {
        sum[j] += b.hours() * p.speedup[j];
      }
      measuredSum += b.hours() * b.speedup();
      hours += b.hours();
    }
    if (hours == 0) {
      return null;
    }
    int best = best(sum);
    return new Overall(best, sum[best] / hours, measuredSum / hours, hours);
  }

  /** S_j for j = 0..k in one bucket, and the draft cost c behind them. */
  private static final class Prediction {
    final double[] speedup;
    final double cost;

    Prediction(double[] speedup, double cost) {
      this.speedup = speedup;
      this.cost = cost;
    }
  }

  /** The prediction in bucket {@code b}, or null without a speed-up or complete positions. */
  private static Prediction predicted(
      SpeedupByLoad.Bucket b, Map<Integer, List<Double>> positionsByLoad, int currentK) {
    List<Double> a = positionsByLoad.get(SpeedupByLoad.bucketOf(b.runningMin()));
    if (b.speedup() == null
        || currentK < 1
        || a == null
        || a.size() < currentK
        || a.stream().anyMatch(java.util.Objects::isNull)) {
      return null;
    }
    double[] length = new double[currentK + 1];
    length[0] = 1;
    for (int j = 1; j <= currentK; j++) {
      length[j] = length[j - 1] + a.get(j - 1);
    }
    double cost = Math.max(0, (length[currentK] / b.speedup() - 1) / currentK);
    double[] s = new double[currentK + 1];
    s[0] = 1;
    for (int j = 1; j <= currentK; j++) {
      s[j] = length[j] / (1 + j * cost);
    }
    return new Prediction(s, cost);
  }

  /** The index of the largest value; on a tie the smaller j (less draft work for the same). */
  private static int best(double[] s) {
    int best = 0;
    for (int j = 1; j < s.length; j++) {
      if (s[j] > s[best]) {
        best = j;
      }
    }
    return best;
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
