package dev.specwatch.sim;

import dev.specwatch.model.Engine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders what a vLLM V1 server with speculative decoding exposes on {@code /metrics} at any moment
 * of a {@link Scenario}, in the Prometheus text format (version 0.0.4) as the Python client writes
 * it: HELP/TYPE per family, {@code _total} counters with their {@code _created} gauges, labels
 * {@code engine}, {@code model_name} (and {@code position}). Thread-safe: state is immutable.
 */
public final class Simulator {
  private final Scenario scenario;
  private final Clock clock;
  private final Instant start;

  public Simulator(Scenario scenario, Clock clock) {
    this.scenario = scenario;
    this.clock = clock;
    this.start = clock.instant();
  }

  public Scenario scenario() {
    return scenario;
  }

  /** The exposition now. */
  public String exposition() {
    return exposition(Duration.between(start, clock.instant()));
  }

  /** Counters of every engine of every model, {@code elapsed} after the start. */
  public List<EngineSample> samples(Duration elapsed) {
    List<EngineSample> out = new ArrayList<>();
    for (ModelScenario model : scenario.models()) {
      if (model.engine() != Engine.VLLM) {
        continue;
      }
      ModelCounters counters = ModelCounters.of(model, elapsed);
      double created = toEpochSeconds(start.plus(elapsed).minus(counters.sinceStartOfCounting()));
      for (int engine = 0; engine < model.engines(); engine++) {
        out.add(new EngineSample(model.modelName(), engine, counters, created));
      }
    }
    return out;
  }

  /** One engine's counters and the time they started counting (seconds since the epoch). */
  public record EngineSample(
      String modelName, int engine, ModelCounters counters, double createdEpochSeconds) {}

  public String exposition(Duration elapsed) {
    List<EngineSample> samples = samples(elapsed);
    StringBuilder out = new StringBuilder(4096);
    for (Expositions.Shape shape : Expositions.ALL) {
      shape.writer().ifPresent(w -> w.write(out, scenario, elapsed));
    }
    if (samples.isEmpty()) {
      return out.toString();
    }
    // vLLM before PR #16665 exports neither num_drafts nor the per-position counter.
    java.util.Set<String> tokenCountersOnly = new java.util.HashSet<>();
    for (ModelScenario m : scenario.models()) {
      if (m.version().equals("token-counters-only")) {
        tokenCountersOnly.add(m.modelName());
      }
    }
    // A vLLM without a speculative config registers no spec-decode metrics at all.
    List<EngineSample> speculative =
        samples.stream().filter(s -> s.counters().positions() > 0).toList();
    List<EngineSample> full =
        speculative.stream().filter(s -> !tokenCountersOnly.contains(s.modelName())).toList();
    counter(
        out,
        "vllm:spec_decode_num_drafts",
        "Number of spec decoding drafts.",
        full,
        c -> c.drafts());
    counter(
        out,
        "vllm:spec_decode_num_draft_tokens",
        "Number of draft tokens.",
        speculative,
        c -> c.draftTokens());
    counter(
        out,
        "vllm:spec_decode_num_accepted_tokens",
        "Number of accepted tokens.",
        speculative,
        c -> c.acceptedTokens());
    perPosition(out, full);
    counter(
        out,
        "vllm:prompt_tokens",
        "Number of prefill tokens processed.",
        samples,
        c -> c.promptTokens());
    counter(
        out,
        "vllm:generation_tokens",
        "Number of generation tokens processed.",
        samples,
        c -> c.generationTokens());
    running(out, elapsed);
    return out.toString();
  }

  /** {@code vllm:num_requests_running}: the phase's concurrency, split across engines. */
  private void running(StringBuilder out, Duration elapsed) {
    header(
        out,
        "vllm:num_requests_running",
        "Number of requests in model execution batches.",
        "gauge");
    double t = elapsed.toNanos() / 1e9;
    for (ModelScenario m : scenario.models()) {
      if (m.engine() != Engine.VLLM) {
        continue;
      }
      double running = ModelCounters.phaseAt(m, t).runningRequests() / m.engines();
      for (int engine = 0; engine < m.engines(); engine++) {
        out.append("vllm:num_requests_running{engine=\"").append(engine).append("\",model_name=\"");
        escapeLabelValue(out, m.modelName());
        out.append("\"} ").append(formatDouble(running)).append('\n');
      }
    }
  }

  /**
   * The vLLM counters of every model from {@code from} to {@code to} every {@code step}, in the
   * OpenMetrics text format with timestamps, for {@code promtool tsdb create-blocks-from
   * openmetrics} (backfilling history). Times are measured from the simulator's start; every series
   * carries {@code job} (letters, digits and {@code _:.-}), as a scrape would add it.
   */
  public String openMetricsHistory(Instant from, Instant to, Duration step, String job) {
    return openMetricsHistory(from, to, step).replace("{engine=", "{job=\"" + job + "\",engine=");
  }

  /** As {@link #openMetricsHistory(Instant, Instant, Duration, String)}, without a job label. */
  public String openMetricsHistory(Instant from, Instant to, Duration step) {
    List<Instant> times = new ArrayList<>();
    for (Instant t = from; !t.isAfter(to); t = t.plus(step)) {
      times.add(t);
    }
    List<List<EngineSample>> samples = new ArrayList<>();
    for (Instant t : times) {
      samples.add(samples(Duration.between(start, t)));
    }
    StringBuilder out = new StringBuilder();
    String[] families = {
      "vllm:spec_decode_num_drafts",
      "vllm:spec_decode_num_draft_tokens",
      "vllm:spec_decode_num_accepted_tokens",
      "vllm:generation_tokens",
      "vllm:prompt_tokens"
    };
    Field[] fields = {
      ModelCounters::drafts,
      ModelCounters::draftTokens,
      ModelCounters::acceptedTokens,
      ModelCounters::generationTokens,
      ModelCounters::promptTokens
    };
    int series = samples.get(0).size();
    for (int f = 0; f < families.length; f++) {
      out.append("# TYPE ").append(families[f]).append(" counter\n");
      for (int s = 0; s < series; s++) {
        if (f < 3 && samples.get(0).get(s).counters().positions() == 0) {
          continue; // no speculation: no spec-decode series
        }
        for (int i = 0; i < times.size(); i++) {
          EngineSample e = samples.get(i).get(s);
          line(out, families[f] + "_total", e, null, Long.toString(fields[f].of(e.counters())));
          out.setLength(out.length() - 1);
          out.append(' ').append(times.get(i).getEpochSecond()).append('\n');
        }
      }
    }
    out.append("# TYPE vllm:num_requests_running gauge\n");
    for (int s = 0; s < series; s++) {
      for (int i = 0; i < times.size(); i++) {
        EngineSample e = samples.get(i).get(s);
        ModelScenario m = model(e.modelName());
        double running =
            ModelCounters.phaseAt(m, Duration.between(start, times.get(i)).toNanos() / 1e9)
                    .runningRequests()
                / m.engines();
        line(out, "vllm:num_requests_running", e, null, formatDouble(running));
        out.setLength(out.length() - 1);
        out.append(' ').append(times.get(i).getEpochSecond()).append('\n');
      }
    }
    out.append("# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter\n");
    for (int s = 0; s < series; s++) {
      int positions = 0;
      for (List<EngineSample> at : samples) {
        positions = Math.max(positions, at.get(s).counters().positions());
      }
      for (int pos = 0; pos < positions; pos++) {
        for (int i = 0; i < times.size(); i++) {
          EngineSample e = samples.get(i).get(s);
          if (pos >= e.counters().positions()) {
            continue; // a server restarted with a smaller k has no series for this position
          }
          long[] values = e.counters().acceptedPerPosition();
          long value = pos < values.length ? values[pos] : 0;
          line(
              out,
              "vllm:spec_decode_num_accepted_tokens_per_pos_total",
              e,
              Integer.toString(pos),
              Long.toString(value));
          out.setLength(out.length() - 1);
          out.append(' ').append(times.get(i).getEpochSecond()).append('\n');
        }
      }
    }
    return out.append("# EOF\n").toString();
  }

  private ModelScenario model(String name) {
    return scenario.models().stream()
        .filter(m -> m.engine() == Engine.VLLM && m.modelName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private interface Field {
    long of(ModelCounters counters);
  }

  private static void counter(
      StringBuilder out, String name, String help, List<EngineSample> samples, Field field) {
    if (samples.isEmpty()) {
      return; // a release without the metric has no HELP or TYPE line for it either
    }
    header(out, name + "_total", help, "counter");
    for (EngineSample s : samples) {
      line(out, name + "_total", s, null, Long.toString(field.of(s.counters())) + ".0");
    }
    header(out, name + "_created", help, "gauge");
    for (EngineSample s : samples) {
      line(out, name + "_created", s, null, formatDouble(s.createdEpochSeconds()));
    }
  }

  private static void perPosition(StringBuilder out, List<EngineSample> samples) {
    String name = "vllm:spec_decode_num_accepted_tokens_per_pos";
    String help = "Accepted tokens per draft position.";
    if (samples.isEmpty()) {
      return;
    }
    header(out, name + "_total", help, "counter");
    for (EngineSample s : samples) {
      long[] values = s.counters().acceptedPerPosition();
      for (int i = 0; i < values.length; i++) {
        line(out, name + "_total", s, Integer.toString(i), values[i] + ".0");
      }
    }
    header(out, name + "_created", help, "gauge");
    for (EngineSample s : samples) {
      for (int i = 0; i < s.counters().positions(); i++) {
        line(out, name + "_created", s, Integer.toString(i), formatDouble(s.createdEpochSeconds()));
      }
    }
  }

  /** The scenario's models served by {@code engine}. */
  static List<ModelScenario> modelsOf(Scenario scenario, Engine engine) {
    return scenario.models().stream().filter(m -> m.engine() == engine).toList();
  }

  static void header(StringBuilder out, String name, String help, String type) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private static void line(
      StringBuilder out, String name, EngineSample s, String position, String value) {
    out.append(name).append("{engine=\"").append(s.engine()).append("\",model_name=\"");
    escapeLabelValue(out, s.modelName());
    out.append('"');
    if (position != null) {
      out.append(",position=\"").append(position).append('"');
    }
    out.append("} ").append(value).append('\n');
  }

  /** Label value escaping of the text format: backslash, double quote and line feed. */
  static void escapeLabelValue(StringBuilder out, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
  }

  private static double toEpochSeconds(Instant instant) {
    return instant.getEpochSecond() + instant.getNano() / 1e9;
  }

  static String formatDouble(double value) {
    // Same shape as the Python client's repr for timestamps, e.g. 1.7567367987335691e+09.
    return String.format(Locale.ROOT, "%.16e", value);
  }
}
