package dev.specwatch.sim;

import dev.specwatch.model.Engine;
import java.time.Duration;
import java.util.List;

/**
 * llama.cpp's {@code llama-server --metrics} as {@code server_task_result_metrics::to_metrics}
 * writes it (docs/ENGINES.md): unlabelled counters, then gauges, then the per-position counter once
 * a speculative request has finished. One server serves one model, so a scenario has at most one
 * llama.cpp model ({@link ScenarioLoader}). The timing counters and throughput gauges are this
 * simulator's own model: 20 ms a generated token, 0.2 ms a prompt token.
 */
final class LlamacppExposition {
  private LlamacppExposition() {}

  static void write(StringBuilder out, Scenario scenario, Duration elapsed) {
    List<ModelScenario> models = Simulator.modelsOf(scenario, Engine.LLAMACPP);
    if (models.isEmpty()) {
      return;
    }
    ModelScenario m = models.get(0);
    ModelCounters c = ModelCounters.of(m, elapsed);
    double t = elapsed.toNanos() / 1e9;
    double running = ModelCounters.phaseAt(m, t).runningRequests();
    counter(
        out,
        "prompt_tokens_total",
        "Number of prompt tokens processed, excluding cached tokens",
        c.promptTokens());
    counter(out, "prompt_tokens_cached_total", "Number of prompt tokens reused from the cache", 0);
    counter(
        out,
        "prompt_seconds_total",
        "Total time spent processing prompts",
        c.promptTokens() * 2e-4);
    counter(
        out,
        "tokens_predicted_total",
        "Number of generation tokens processed",
        c.generationTokens());
    counter(
        out,
        "tokens_predicted_seconds_total",
        "Total time spent generating tokens",
        c.generationTokens() * 0.02);
    long steps = c.positions() > 0 ? c.drafts() : c.generationTokens();
    counter(
        out,
        "n_decode_total",
        "Total number of llama_decode() calls, excluding speculative decoding and multimodal"
            + " decoding",
        steps);
    counter(out, "n_tokens_max", "Largest observed sequence length (prompt + generation)", 0);
    // Written whether or not a draft is configured: 0 without one.
    counter(
        out,
        "spec_decode_num_draft_tokens_total",
        "Speculative: Total draft tokens generated",
        c.draftTokens());
    counter(
        out,
        "spec_decode_num_accepted_tokens_total",
        "Speculative: Total draft tokens accepted by the target model",
        c.acceptedTokens());
    counter(
        out,
        "spec_decode_num_drafts_total",
        "Speculative: Total speculative decoding verification steps",
        c.drafts());
    gauge(out, "prompt_tokens_seconds", "Average prompt throughput in tokens/s", 5000);
    gauge(out, "predicted_tokens_seconds", "Average generation throughput in tokens/s", 50);
    gauge(out, "requests_processing", "Number of requests processing", Math.round(running));
    gauge(out, "requests_deferred", "Number of requests deferred", 0);
    gauge(
        out,
        "n_busy_slots_per_decode",
        "Average number of busy slots per llama_decode() call",
        Math.round(running));
    long[] accepted = c.acceptedPerPosition();
    if (c.drafts() > 0 && accepted.length > 0) {
      String name = "llamacpp:spec_decode_num_accepted_tokens_per_pos_total";
      Simulator.header(out, name, "Accepted tokens per draft position", "counter");
      for (int pos = 0; pos < accepted.length; pos++) {
        out.append(name)
            .append("{position=\"")
            .append(pos)
            .append("\"} ")
            .append(accepted[pos])
            .append('\n');
      }
    }
  }

  private static void counter(StringBuilder out, String name, String help, long value) {
    item(out, name, help, "counter", Long.toString(value));
  }

  private static void counter(StringBuilder out, String name, String help, double value) {
    item(out, name, help, "counter", Double.toString(value));
  }

  private static void gauge(StringBuilder out, String name, String help, long value) {
    item(out, name, help, "gauge", Long.toString(value));
  }

  /** As llama.cpp's {@code add_items}: HELP, TYPE and one unlabelled sample. */
  private static void item(StringBuilder out, String name, String help, String type, String value) {
    Simulator.header(out, "llamacpp:" + name, help, type);
    out.append("llamacpp:").append(name).append(' ').append(value).append('\n');
  }
}
