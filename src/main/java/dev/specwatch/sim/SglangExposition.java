package dev.specwatch.sim;

import static dev.specwatch.sim.Simulator.escapeLabelValue;
import static dev.specwatch.sim.Simulator.formatDouble;
import static dev.specwatch.sim.Simulator.header;

import dev.specwatch.model.Engine;
import java.time.Duration;
import java.util.List;

/**
 * SGLang's metrics as its source exports them (docs/ENGINES.md): scheduler-side gauges from each
 * DP-attention rank's leader ({@code tp_rank="0"}), labelled {@code model_name, engine_type,
 * tp_rank, pp_rank, moe_ep_rank} (+ {@code dp_rank} with more than one rank), which keep their last
 * value while idle; tokenizer-side counters, one series per server, labelled {@code model_name} (+
 * {@code engine_type} in the {@code verify-calls} and {@code active-k} shapes, + {@code
 * is_streaming} on the token counters in {@code active-k}). The counters grow continuously here;
 * SGLang adds a request's tokens when it finishes.
 *
 * <p>In the {@code active-k} shape (sglang@016d8605) the scheduler also exports the speculative
 * config in force, {@code sglang:spec_num_steps} and {@code sglang:spec_num_draft_tokens}; this
 * simulator drafts a chain (top-k 1), so they are k and k + 1.
 */
final class SglangExposition {
  /** SGLang with the active-k gauges and is_streaming (ModelScenario's version). */
  static final String ACTIVE_K = ModelScenario.SGLANG_ACTIVE_K;

  private SglangExposition() {}

  static void write(StringBuilder out, Scenario scenario, Duration elapsed) {
    List<ModelScenario> models = Simulator.modelsOf(scenario, Engine.SGLANG);
    if (models.isEmpty()) {
      return;
    }
    // One exposition, one HELP per family: the newer text where every model is of the newer shape.
    boolean newest = models.stream().allMatch(m -> m.version().equals(ACTIVE_K));
    List<ModelScenario> activeK =
        models.stream().filter(m -> m.version().equals(ACTIVE_K)).toList();
    double t = elapsed.toNanos() / 1e9;
    header(out, "sglang:num_running_reqs", "The number of running requests.", "gauge");
    for (ModelScenario m : models) {
      double running = ModelCounters.phaseAt(m, t).runningRequests() / m.engines();
      for (int rank = 0; rank < m.engines(); rank++) {
        schedulerLine(out, "sglang:num_running_reqs", m, rank, formatDouble(running));
      }
    }
    header(
        out,
        "sglang:spec_accept_length",
        newest
            ? "Mean acceptance length of speculative decoding (accepted drafts + bonus token per"
                + " forward)."
            : "The average acceptance length of speculative decoding.",
        "gauge");
    for (ModelScenario m : models) {
      Phase phase = ModelCounters.lastActivePhase(m, t);
      for (int rank = 0; phase != null && rank < m.engines(); rank++) {
        schedulerLine(
            out, "sglang:spec_accept_length", m, rank, formatDouble(phase.meanAcceptedLength()));
      }
    }
    header(
        out,
        "sglang:spec_accept_rate",
        newest
            ? "Speculative acceptance rate (`accepted drafts / proposed drafts` in batch)."
            : "The average acceptance rate of speculative decoding (`accepted tokens / total draft"
                + " tokens` in batch).",
        "gauge");
    for (ModelScenario m : models) {
      Phase phase = ModelCounters.lastActivePhase(m, t);
      for (int rank = 0; phase != null && rank < m.engines(); rank++) {
        int k = phase.numSpeculativeTokens();
        // Older releases: accepted tokens incl. the bonus token over steps x (k + 1); active-k
        // (metrics_reporter.py @00df707e): accepted drafts over steps x (num_draft_tokens - 1).
        double rate =
            m.version().equals(ACTIVE_K)
                ? (phase.meanAcceptedLength() - 1) / Math.max(1, k)
                : phase.meanAcceptedLength() / (k + 1);
        schedulerLine(out, "sglang:spec_accept_rate", m, rank, formatDouble(rate));
      }
    }
    activeK(out, activeK, t);
    tokens(
        out, "sglang:prompt_tokens_total", "Number of prefill tokens processed.", models, elapsed);
    tokens(
        out,
        "sglang:generation_tokens_total",
        "Number of generation tokens processed.",
        models,
        elapsed);
    List<ModelScenario> withVerify =
        models.stream().filter(m -> !m.version().equals("gauges-only")).toList();
    if (!withVerify.isEmpty()) {
      header(
          out,
          "sglang:spec_verify_calls_total",
          "Number of speculative decoding verification calls.",
          "counter");
      for (ModelScenario m : withVerify) {
        ModelCounters c = ModelCounters.of(m, elapsed);
        tokenizerLine(out, "sglang:spec_verify_calls_total", m, "", c.drafts());
      }
    }
  }

  /** The active-k shape's gauges: the DSpark ones at 0 (no cap) and the config in force. */
  private static void activeK(StringBuilder out, List<ModelScenario> models, double t) {
    if (models.isEmpty()) {
      return;
    }
    String[][] gauges = {
      {
        "sglang:spec_cap_length",
        "Mean DSpark confidence-scheduled verify window per verify step, incl the bonus slot (0"
            + " when no cap is scheduled)."
      },
      {
        "sglang:spec_block_accept_length",
        "Mean uncapped full-block accept length per verify step (accept + cap-trimmed drafts;"
            + " exact only in DSpark cap-accept mode)."
      },
      {"sglang:spec_num_steps", "Currently active speculative_num_steps."},
      {
        "sglang:spec_num_draft_tokens",
        "Currently active speculative_num_draft_tokens (decouples from steps under topk>1)."
      },
    };
    for (int g = 0; g < gauges.length; g++) {
      header(out, gauges[g][0], gauges[g][1], "gauge");
      for (ModelScenario m : models) {
        int k = ModelCounters.phaseAt(m, t).numSpeculativeTokens();
        double value = g < 2 ? 0 : g == 2 ? k : k + 1;
        for (int rank = 0; rank < m.engines(); rank++) {
          schedulerLine(out, gauges[g][0], m, rank, formatDouble(value));
        }
      }
    }
  }

  /**
   * A token counter, one series per server; in the active-k shape split by {@code is_streaming}
   * (half the requests streamed here).
   */
  private static void tokens(
      StringBuilder out, String name, String help, List<ModelScenario> models, Duration elapsed) {
    header(out, name, help, "counter");
    for (ModelScenario m : models) {
      ModelCounters c = ModelCounters.of(m, elapsed);
      long value = name.contains("generation") ? c.generationTokens() : c.promptTokens();
      if (m.version().equals(ACTIVE_K)) {
        tokenizerLine(out, name, m, ",is_streaming=\"false\"", value - value / 2);
        tokenizerLine(out, name, m, ",is_streaming=\"true\"", value / 2);
      } else {
        tokenizerLine(out, name, m, "", value);
      }
    }
  }

  /** A scheduler-side sample: the leader of DP-attention rank {@code rank}. */
  private static void schedulerLine(
      StringBuilder out, String name, ModelScenario m, int rank, String value) {
    out.append(name).append("{model_name=\"");
    escapeLabelValue(out, m.modelName());
    out.append("\",engine_type=\"unified\",tp_rank=\"0\",pp_rank=\"0\",moe_ep_rank=\"0\"");
    if (m.engines() > 1) {
      out.append(",dp_rank=\"").append(rank).append('"');
    }
    out.append("} ").append(value).append('\n');
  }

  /** A tokenizer-side sample: one per server, no rank labels. */
  private static void tokenizerLine(
      StringBuilder out, String name, ModelScenario m, String more, long value) {
    out.append(name).append("{model_name=\"");
    escapeLabelValue(out, m.modelName());
    out.append('"');
    if (!m.version().equals("gauges-only")) {
      out.append(",engine_type=\"unified\"");
    }
    out.append(more).append("} ").append(value).append(".0\n");
  }
}
