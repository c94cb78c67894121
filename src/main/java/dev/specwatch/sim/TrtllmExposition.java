package dev.specwatch.sim;

import dev.specwatch.model.Engine;
import java.time.Duration;
import java.util.List;

/**
 * TensorRT-LLM's {@code trtllm-serve} metrics as {@code tensorrt_llm/metrics/collector.py} names
 * and labels them (docs/ENGINES.md): one series per server labelled {@code model_name="undefined"}
 * and {@code engine_type="undefined"}, as {@code tensorrt_llm/serve/openai_server.py} creates its
 * collector whatever model it serves (so one TensorRT-LLM model per simulator), per-position
 * counters with {@code token_position} (0-based). The draft overhead gauge is this simulator's own
 * model: 5 % of the step per draft token.
 */
final class TrtllmExposition {
  private TrtllmExposition() {}

  static void write(StringBuilder out, Scenario scenario, Duration elapsed) {
    List<ModelScenario> models = Simulator.modelsOf(scenario, Engine.TRTLLM);
    if (models.isEmpty()) {
      return;
    }
    double t = elapsed.toNanos() / 1e9;
    // The per-request families are counted when a request finishes; in prometheus_client's
    // multiprocess mode a family without samples is not written at all.
    List<ModelScenario> finished =
        models.stream()
            .filter(m -> !m.version().equals(ModelScenario.NO_FINISHED_REQUESTS))
            .toList();
    counter(
        out,
        "trtllm_spec_decode_num_draft_tokens_total",
        "Total number of draft tokens in speculative decoding",
        models,
        elapsed,
        c -> c.draftTokens());
    counter(
        out,
        "trtllm_spec_decode_num_accepted_tokens_total",
        "Total number of accepted tokens in speculative decoding",
        models,
        elapsed,
        c -> c.acceptedTokens());
    counter(
        out,
        "trtllm_generation_tokens_total",
        "Cumulative number of generation (output) tokens produced.",
        finished,
        elapsed,
        c -> c.generationTokens());
    counter(
        out,
        "trtllm_prompt_tokens_total",
        "Cumulative number of prompt (input) tokens processed.",
        finished,
        elapsed,
        c -> c.promptTokens());
    perPosition(out, finished, elapsed);
    Simulator.header(out, "trtllm_num_requests_running", "Number of active requests", "gauge");
    for (ModelScenario m : models) {
      line(out, "trtllm_num_requests_running", ModelCounters.phaseAt(m, t).runningRequests());
    }
    Simulator.header(
        out,
        "trtllm_spec_decode_acceptance_length",
        "Acceptance length in speculative decoding",
        "gauge");
    for (ModelScenario m : models) {
      Phase phase = ModelCounters.lastActivePhase(m, t);
      if (phase != null) {
        line(out, "trtllm_spec_decode_acceptance_length", phase.meanAcceptedLength());
      }
    }
    Simulator.header(
        out,
        "trtllm_spec_decode_draft_overhead",
        "Draft overhead in speculative decoding",
        "gauge");
    for (ModelScenario m : models) {
      Phase phase = ModelCounters.lastActivePhase(m, t);
      if (phase != null) {
        line(out, "trtllm_spec_decode_draft_overhead", 0.05 * phase.numSpeculativeTokens());
      }
    }
  }

  /** The per-position counters, filled when a request finishes. */
  private static void perPosition(
      StringBuilder out, List<ModelScenario> finished, Duration elapsed) {
    if (finished.isEmpty()) {
      return;
    }
    Simulator.header(
        out,
        "trtllm_spec_decode_drafted_tokens_total",
        "Total drafted tokens per speculative decoding position.",
        "counter");
    for (ModelScenario m : finished) {
      ModelCounters c = ModelCounters.of(m, elapsed);
      for (int pos = 0; pos < c.positions(); pos++) {
        positionLine(out, "trtllm_spec_decode_drafted_tokens_total", pos, c.drafts());
      }
    }
    Simulator.header(
        out,
        "trtllm_spec_decode_accepted_tokens_total",
        "Total accepted tokens per speculative decoding position.",
        "counter");
    for (ModelScenario m : finished) {
      ModelCounters c = ModelCounters.of(m, elapsed);
      long[] accepted = c.acceptedPerPosition();
      for (int pos = 0; pos < accepted.length; pos++) {
        positionLine(out, "trtllm_spec_decode_accepted_tokens_total", pos, accepted[pos]);
      }
    }
  }

  /** One of the counters' values. */
  @FunctionalInterface
  private interface Field {
    long of(ModelCounters c);
  }

  private static void counter(
      StringBuilder out,
      String name,
      String help,
      List<ModelScenario> models,
      Duration elapsed,
      Field field) {
    if (models.isEmpty()) {
      return;
    }
    Simulator.header(out, name, help, "counter");
    for (ModelScenario m : models) {
      labels(out.append(name)).append("} ").append(field.of(ModelCounters.of(m, elapsed)));
      out.append(".0\n");
    }
  }

  private static void positionLine(StringBuilder out, String name, int position, long value) {
    labels(out.append(name))
        .append(",token_position=\"")
        .append(position)
        .append("\"} ")
        .append(value)
        .append(".0\n");
  }

  private static void line(StringBuilder out, String name, double value) {
    labels(out.append(name)).append("} ").append(Simulator.formatDouble(value)).append('\n');
  }

  private static StringBuilder labels(StringBuilder out) {
    return out.append("{model_name=\"undefined\",engine_type=\"undefined\"");
  }
}
