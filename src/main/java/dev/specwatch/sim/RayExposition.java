package dev.specwatch.sim;

import dev.specwatch.model.Engine;
import java.time.Duration;
import java.util.List;

/**
 * vLLM V1 behind Ray Serve LLM as {@code RayPrometheusStatLogger} has Ray export it
 * (docs/ENGINES.md, fixture {@code engines/ray_vllm.prom}): vLLM's names with {@code :} replaced by
 * {@code _} and prefixed {@code ray_}, counters ending in {@code _total}, vLLM's labels plus
 * Serve's {@code ReplicaId} and Ray's {@code WorkerId}, one replica per {@code engines}, traffic
 * split evenly. A counter has no series before its first increment (the wrapper skips {@code
 * inc(0)}), and Ray writes no {@code _created} series.
 */
final class RayExposition {
  private static final String PREFIX = "ray_vllm_";

  private RayExposition() {}

  private interface Field {
    long of(ModelCounters c);
  }

  static void write(StringBuilder out, Scenario scenario, Duration elapsed) {
    List<ModelScenario> models = Simulator.modelsOf(scenario, Engine.RAY_VLLM);
    if (models.isEmpty()) {
      return;
    }
    // Each model's counters once a scrape; every family reads them.
    java.util.Map<ModelScenario, ModelCounters> counters = new java.util.LinkedHashMap<>();
    models.forEach(m -> counters.put(m, ModelCounters.of(m, elapsed)));
    counter(
        out,
        counters,
        "spec_decode_num_drafts",
        "Number of spec decoding drafts.",
        ModelCounters::drafts);
    counter(
        out,
        counters,
        "spec_decode_num_draft_tokens",
        "Number of draft tokens.",
        ModelCounters::draftTokens);
    counter(
        out,
        counters,
        "spec_decode_num_accepted_tokens",
        "Number of accepted tokens.",
        ModelCounters::acceptedTokens);
    String perPos = PREFIX + "spec_decode_num_accepted_tokens_per_pos_total";
    Simulator.header(out, perPos, "Accepted tokens per draft position.", "counter");
    for (ModelScenario m : models) {
      long[] accepted = counters.get(m).acceptedPerPosition();
      for (int replica = 0; replica < m.engines(); replica++) {
        for (int pos = 0; pos < accepted.length; pos++) {
          if (accepted[pos] > 0) {
            line(out, perPos, m, replica, Integer.toString(pos), accepted[pos] + ".0");
          }
        }
      }
    }
    counter(
        out,
        counters,
        "prompt_tokens",
        "Number of prefill tokens processed.",
        ModelCounters::promptTokens);
    counter(
        out,
        counters,
        "generation_tokens",
        "Number of generation tokens processed.",
        ModelCounters::generationTokens);
    String running = PREFIX + "num_requests_running";
    Simulator.header(out, running, "Number of requests in model execution batches.", "gauge");
    double t = elapsed.toNanos() / 1e9;
    for (ModelScenario m : models) {
      double perReplica = ModelCounters.phaseAt(m, t).runningRequests() / m.engines();
      for (int replica = 0; replica < m.engines(); replica++) {
        line(out, running, m, replica, null, Double.toString(perReplica));
      }
    }
  }

  private static void counter(
      StringBuilder out,
      java.util.Map<ModelScenario, ModelCounters> counters,
      String name,
      String help,
      Field field) {
    String full = PREFIX + name + "_total";
    Simulator.header(out, full, help, "counter");
    for (java.util.Map.Entry<ModelScenario, ModelCounters> e : counters.entrySet()) {
      ModelScenario m = e.getKey();
      long value = field.of(e.getValue());
      for (int replica = 0; replica < m.engines(); replica++) {
        if (value > 0) {
          line(out, full, m, replica, null, value + ".0");
        }
      }
    }
  }

  private static void line(
      StringBuilder out, String name, ModelScenario m, int replica, String position, String value) {
    out.append(name)
        .append("{ReplicaId=\"r")
        .append(replica)
        .append("\",WorkerId=\"")
        .append(workerId(m, replica))
        .append("\",engine=\"0\",model_name=\"");
    Simulator.escapeLabelValue(out, m.modelName());
    out.append('"');
    if (position != null) {
      out.append(",position=\"").append(position).append('"');
    }
    out.append("} ").append(value).append('\n');
  }

  /** A stable hex id per model and replica, as Ray's worker ids look. */
  private static String workerId(ModelScenario m, int replica) {
    return String.format(java.util.Locale.ROOT, "%08x", (m.modelName() + "#" + replica).hashCode());
  }
}
