package dev.specwatch.sim;

import dev.specwatch.yaml.MapReader;
import java.util.Optional;

/**
 * The simulator's step-time model (docs/SIMULATOR.md, docs/SPEEDUP.md): one decoding step of a
 * batch of {@code b} running requests verifying {@code k} draft tokens each takes {@code base +
 * perToken × b × (1 + k) + draft × k} milliseconds: a fixed cost (weights read once a step), a cost
 * growing with the tokens the target model verifies, and the draft model's (or MTP head's) cost per
 * drafted position. Each request emits its mean accepted length E_k a step (1 without speculation),
 * so per-request speed is E_k / step time: speculation pays where the step is dominated by the
 * fixed cost (small batches) and stops paying as the batch grows, with acceptance unchanged.
 */
record StepTime(double baseMs, double perTokenMs, double draftMs) {
  static Optional<StepTime> read(MapReader m) {
    double base = m.number("base_ms", 10, 0.001, 10_000);
    double perToken = m.number("per_token_ms", 0.5, 0, 10_000);
    double draft = m.number("draft_ms", 1, 0, 10_000);
    m.finish();
    return Optional.of(new StepTime(base, perToken, draft));
  }

  /** Milliseconds of one step with {@code running} requests and {@code k} draft tokens each. */
  double stepMs(double running, int k) {
    return baseMs + perTokenMs * running * (1 + k) + draftMs * k;
  }

  /** Generated tokens per second of the whole batch. */
  double tokensPerSecond(double running, int k, double meanAcceptedLength) {
    return running * meanAcceptedLength * 1000 / stepMs(running, k);
  }
}
