package dev.specwatch.testing;

import java.util.List;

/**
 * A step-time world the advisor does not share (issue 40, part 3; docs/SPEEDUP.md, "Advice against
 * another world"): a decode step's time from a roofline, where the target model is memory-bound
 * (reading its weights and the batch's KV cache) until the tokens it verifies make it
 * compute-bound, and each draft token is one sequential forward pass of a small draft model with a
 * fixed launch cost. The cost of a draft token therefore depends on the batch and on k (free while
 * the target is memory-bound, a full token's compute once it is not), where the advisor's {@code
 * LoadSchedule} assumes a step with j drafts costs 1 + j·c plain steps, c one constant per bucket.
 *
 * <p>Nothing here is fitted to the advisor or drawn from it; the figures are public hardware orders
 * of magnitude (an H100-class GPU: 3.35 TB/s, about 600 TFLOP/s sustained at FP8), not a
 * measurement of any engine.
 *
 * @param name what the world is, for the bench's table
 * @param weightBytes the target's weights read every step
 * @param flopsPerToken the target's FLOPs per verified token (2 × parameters)
 * @param kvBytesPerRequest the KV cache one request's context reads every step
 * @param draftWeightBytes the draft model's (or head's) weights read every draft pass
 * @param draftFlopsPerToken the draft's FLOPs per token
 * @param launchSeconds fixed cost of each forward pass (kernel launches, sampling)
 * @param acceptance unconditional acceptance by position (position i accepted on a fraction a_i of
 *     drafts), as vLLM's per-position counters report it
 */
public record RooflineWorld(
    String name,
    double weightBytes,
    double flopsPerToken,
    double kvBytesPerRequest,
    double draftWeightBytes,
    double draftFlopsPerToken,
    double launchSeconds,
    List<Double> acceptance) {
  public static final double BANDWIDTH = 3.35e12;
  public static final double FLOPS = 6.0e14;

  /** The time of one decode step of {@code batch} requests, each verifying {@code k} drafts. */
  public double stepSeconds(int batch, int k) {
    double target =
        Math.max(
                (weightBytes + batch * kvBytesPerRequest) / BANDWIDTH,
                flopsPerToken * batch * (k + 1) / FLOPS)
            + launchSeconds;
    double draftPass =
        Math.max(draftWeightBytes / BANDWIDTH, draftFlopsPerToken * batch / FLOPS) + launchSeconds;
    return target + k * draftPass;
  }

  /** Tokens a request gains per step at k: 1 + Σ_{i<k} a_i. */
  public double tokensPerStep(int k) {
    double e = 1;
    for (int i = 0; i < k; i++) {
      e += acceptance.get(i);
    }
    return e;
  }

  /** The true per-request speed-up of k draft tokens against none, at {@code batch} requests. */
  public double speedup(int batch, int k) {
    return tokensPerStep(k) / (stepSeconds(batch, k) / stepSeconds(batch, 0));
  }

  /** The k ≤ {@code maxK} with the largest true speed-up at {@code batch} (0: speculation off). */
  public int bestK(int batch, int maxK) {
    int best = 0;
    for (int k = 1; k <= maxK; k++) {
      if (speedup(batch, k) > speedup(batch, best)) {
        best = k;
      }
    }
    return best;
  }

  private static final List<Double> EAGLE = List.of(0.80, 0.62, 0.48, 0.37, 0.28, 0.21, 0.16);
  private static final List<Double> WEAK = List.of(0.60, 0.36, 0.22, 0.13, 0.08, 0.05, 0.03);

  /** Worlds of different shapes: model size, context, draft cost and acceptance. */
  public static final List<RooflineWorld> WORLDS =
      List.of(
          new RooflineWorld(
              "70B FP8, 2k context, EAGLE head", 70e9, 140e9, 0.33e9, 1.0e9, 2e9, 0.20e-3, EAGLE),
          new RooflineWorld(
              "70B FP8, 32k context, EAGLE head", 70e9, 140e9, 5.2e9, 1.0e9, 2e9, 0.20e-3, EAGLE),
          new RooflineWorld(
              "8B BF16, 2k context, EAGLE head", 16e9, 16e9, 0.27e9, 0.5e9, 1e9, 0.15e-3, EAGLE),
          new RooflineWorld(
              "70B FP8, 2k context, 1B draft model, weak",
              70e9,
              140e9,
              0.33e9,
              2.0e9,
              2e9,
              0.35e-3,
              WEAK),
          new RooflineWorld(
              "235B MoE (22B active), 8k context, MTP",
              235e9 * 0.3,
              44e9,
              1.3e9,
              1.5e9,
              3e9,
              0.25e-3,
              EAGLE));
}
