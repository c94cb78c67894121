package dev.specwatch.cli;

import dev.specwatch.advisor.LoadSchedule;
import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.signals.FinishedRequests;
import dev.specwatch.signals.LoadHistory;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code advise}'s measured speed-up by load (docs/SPEEDUP.md): the recipe's per-request decode
 * speed against a baseline deployment over the same window, or against its own history before a
 * change; "not measured" without a baseline.
 *
 * @param baseline the baseline recipe, or the recipe itself for a baseline period
 * @param baselineFrom start of the baseline period when the baseline is the recipe's own history
 * @param result null when not measured ({@code reason} says why)
 * @param overall the one k for all the load it ran, from the same predictions as {@code schedule};
 *     null without them
 */
record SpeedupReport(
    String baseline,
    Instant baselineFrom,
    Instant baselineTo,
    Instant from,
    Instant to,
    Duration step,
    SpeedupByLoad.Result result,
    String reason,
    List<LoadSchedule.Entry> schedule,
    LoadSchedule.Overall overall,
    Finished finished) {

  /**
   * The decode speed of the requests that finished on each side, from vLLM's per-request histograms
   * (docs/SPEEDUP.md): a cross-check free of queueing, not matched by load. Either side empty where
   * not exported.
   */
  record Finished(
      Optional<FinishedRequests.Speed> recipe, Optional<FinishedRequests.Speed> baseline) {
    static final Finished NONE = new Finished(Optional.empty(), Optional.empty());

    /** Why the comparison may be confounded (the two sides' lengths differ), or empty. */
    Optional<String> mixDiffers() {
      return recipe.isPresent() && baseline.isPresent()
          ? FinishedRequests.mixDiffers(recipe.get(), baseline.get())
          : Optional.empty();
    }

    Double speedup() {
      return recipe.isPresent() && baseline.isPresent()
          ? recipe.get().tokensPerSecondPerRequest() / baseline.get().tokensPerSecondPerRequest()
          : null;
    }
  }

  static SpeedupReport notMeasured(String reason) {
    return new SpeedupReport(
        null, null, null, null, null, null, null, reason, List.of(), null, Finished.NONE);
  }

  /** Against another deployment over the same window ({@code speedup_baseline}). */
  static SpeedupReport against(
      PrometheusApi api, Policy recipe, Policy baseline, Instant from, Instant to, Duration step)
      throws PrometheusException {
    return new SpeedupReport(
        baseline.recipe(),
        null,
        null,
        from,
        to,
        step,
        LoadHistory.speedup(api, recipe, baseline, from, to, step),
        null,
        List.of(),
        null,
        new Finished(
            FinishedRequests.measure(api, recipe, to, Duration.between(from, to)),
            FinishedRequests.measure(api, baseline, to, Duration.between(from, to))));
  }

  /** Against the recipe's own history from {@code baselineFrom} to {@code baselineTo}. */
  static SpeedupReport beforeAndAfter(
      PrometheusApi api,
      Policy recipe,
      Instant baselineFrom,
      Instant baselineTo,
      Instant from,
      Instant to,
      Duration step)
      throws PrometheusException {
    List<SpeedupByLoad.Step> now =
        LoadHistory.fetch(api, List.of(recipe), from, to, step)
            .getOrDefault(recipe.recipe(), List.of());
    List<SpeedupByLoad.Step> before =
        LoadHistory.fetch(api, List.of(recipe), baselineFrom, baselineTo, step)
            .getOrDefault(recipe.recipe(), List.of());
    return new SpeedupReport(
        recipe.recipe(),
        baselineFrom,
        baselineTo,
        from,
        to,
        step,
        SpeedupByLoad.measure(now, before, step.toMillis() / 1000.0),
        null,
        List.of(),
        null,
        new Finished(
            FinishedRequests.measure(api, recipe, to, Duration.between(from, to)),
            FinishedRequests.measure(
                api, recipe, baselineTo, Duration.between(baselineFrom, baselineTo))));
  }

  /** The same report with the advice by load drawn from it and the recipe's acceptance by load. */
  SpeedupReport withSchedule(Map<Integer, List<Double>> positionsByLoad, int k) {
    if (result == null) {
      return this;
    }
    return new SpeedupReport(
        baseline,
        baselineFrom,
        baselineTo,
        from,
        to,
        step,
        result,
        reason,
        LoadSchedule.schedule(result, positionsByLoad, k),
        LoadSchedule.overall(result, positionsByLoad, k),
        finished);
  }

  /** The {@code advice_by_load} object of {@code advise --output json}; null without a measure. */
  Map<String, Object> scheduleJson() {
    if (result == null || schedule.isEmpty()) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    List<Object> entries = new ArrayList<>();
    for (LoadSchedule.Entry e : schedule) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("running_min", e.runningMin());
      j.put("running_max", e.runningMax());
      j.put("k", e.k());
      j.put("expected_speedup", round(e.expectedSpeedup(), 3));
      j.put("measured_speedup_at_current_k", round(e.measuredSpeedup(), 3));
      j.put("draft_cost", round(e.draftCost(), 4));
      entries.add(j);
    }
    m.put("schedule", entries);
    m.put(
        "vllm",
        Map.of(
            "num_speculative_tokens_per_batch_size",
            LoadSchedule.vllm(schedule).stream().map(r -> List.of(r[0], r[1], r[2])).toList()));
    Map<String, Integer> trt = new LinkedHashMap<>();
    LoadSchedule.trtllm(schedule).forEach((b, k) -> trt.put(Integer.toString(b), k));
    m.put("trtllm", Map.of("draft_len_schedule", trt));
    m.put(
        "basis",
        "per bucket: the speed-up measured at the current k and the acceptance by position there;"
            + " a step with j drafts costs 1 + j*c plain steps, c from the measurement; not"
            + " extrapolated beyond the current k");
    return m;
  }

  /** The {@code speedup} object of {@code advise --output json}. */
  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("measured", result != null);
    if (result == null) {
      m.put("reason", reason);
      return m;
    }
    m.put("baseline", baseline);
    if (baselineFrom != null) {
      m.put("baseline_from", seconds(baselineFrom));
      m.put("baseline_to", seconds(baselineTo));
    }
    m.put("from", seconds(from));
    m.put("to", seconds(to));
    m.put("step", Durations.format(step));
    List<Object> buckets = new ArrayList<>();
    for (SpeedupByLoad.Bucket b : result.byLoad()) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("running_min", b.runningMin());
      j.put("running_max", b.runningMax());
      j.put("hours", round(b.hours(), 2));
      j.put("baseline_hours", round(b.baselineHours(), 2));
      j.put("speedup", round(b.speedup(), 3));
      j.put("low", round(b.low(), 3));
      j.put("high", round(b.high(), 3));
      j.put("tokens_per_second_per_request", round(b.tokensPerSecondPerRequest(), 2));
      j.put(
          "baseline_tokens_per_second_per_request",
          round(b.baselineTokensPerSecondPerRequest(), 2));
      j.put("verdict", b.verdict());
      if (b.note() != null) {
        j.put("note", b.note());
      }
      buckets.add(j);
    }
    m.put("by_load", buckets);
    SpeedupByLoad.Bucket most = result.mostRun();
    if (most != null) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("running_min", most.runningMin());
      j.put("running_max", most.runningMax());
      j.put("speedup", round(most.speedup(), 3));
      j.put("low", round(most.low(), 3));
      j.put("high", round(most.high(), 3));
      m.put("most_run", j);
    }
    m.put("pays_up_to_running", result.paysUpToRunning());
    m.put("finished_requests", finishedJson());
    m.put("confounded", finished.mixDiffers().orElse(null));
    return m;
  }

  /** {@code speedup.finished_requests}; null where neither side exports the histograms. */
  private Map<String, Object> finishedJson() {
    if (finished.recipe().isEmpty() && finished.baseline().isEmpty()) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(
        "tokens_per_second_per_request",
        finished.recipe().map(x -> round(x.tokensPerSecondPerRequest(), 2)).orElse(null));
    m.put("requests", finished.recipe().map(x -> Math.round(x.requests())).orElse(null));
    m.put(
        "baseline_tokens_per_second_per_request",
        finished.baseline().map(x -> round(x.tokensPerSecondPerRequest(), 2)).orElse(null));
    m.put("baseline_requests", finished.baseline().map(x -> Math.round(x.requests())).orElse(null));
    m.put("speedup", round(finished.speedup(), 3));
    m.put("output_tokens", finished.recipe().map(x -> round(x.outputTokens(), 1)).orElse(null));
    m.put("prompt_tokens", finished.recipe().map(x -> round(x.promptTokens(), 1)).orElse(null));
    m.put(
        "baseline_output_tokens",
        finished.baseline().map(x -> round(x.outputTokens(), 1)).orElse(null));
    m.put(
        "baseline_prompt_tokens",
        finished.baseline().map(x -> round(x.promptTokens(), 1)).orElse(null));
    m.put(
        "basis",
        "vLLM's request_decode_time_seconds and request_generation_tokens histograms: decode"
            + " tokens per second of the requests that finished in the window, over all loads");
    return m;
  }

  /** The cross-check line from the finished requests' histograms, or null. */
  private String finishedLine() {
    Double ratio = finished.speedup();
    if (ratio == null) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "finished requests (vLLM decode-time histograms, all loads together): %.1f vs %.1f"
            + " tok/s per request, %.2fx over %d and %d requests",
        finished.recipe().get().tokensPerSecondPerRequest(),
        finished.baseline().get().tokensPerSecondPerRequest(),
        ratio,
        Math.round(finished.recipe().get().requests()),
        Math.round(finished.baseline().get().requests()));
  }

  /** The text of {@code advise}: a table by load, then where speculation stops paying. */
  void print(PrintWriter out) {
    if (result == null) {
      out.println("speed-up: not measured (" + reason + ")");
      return;
    }
    String against =
        baselineFrom == null
            ? "recipe " + baseline
            : "its own history " + seconds(baselineFrom) + " to " + seconds(baselineTo);
    out.printf(
        Locale.ROOT,
        "speed-up by load, measured against %s (%s steps, %s to %s):%n",
        against,
        Durations.format(step),
        seconds(from),
        seconds(to));
    if (result.byLoad().isEmpty()) {
      out.println("  no steps with running requests on either side");
      return;
    }
    out.println("  running   hours  tok/s/req  baseline  speed-up  95 % interval");
    for (SpeedupByLoad.Bucket b : result.byLoad()) {
      String load =
          b.runningMin() == b.runningMax()
              ? Integer.toString(b.runningMin())
              : b.runningMin() + "-" + b.runningMax();
      if (b.speedup() == null) {
        out.printf(
            Locale.ROOT,
            "  %7s  %6.1f  %9s  %8s  %8s  too little data: %s%n",
            load,
            b.hours(),
            number(b.tokensPerSecondPerRequest()),
            number(b.baselineTokensPerSecondPerRequest()),
            "-",
            b.note());
      } else {
        out.printf(
            Locale.ROOT,
            "  %7s  %6.1f  %9.1f  %8.1f  %7.2fx  %.2f-%.2f  %s%n",
            load,
            b.hours(),
            b.tokensPerSecondPerRequest(),
            b.baselineTokensPerSecondPerRequest(),
            b.speedup(),
            b.low(),
            b.high(),
            b.verdict());
      }
    }
    SpeedupByLoad.Bucket most = result.mostRun();
    if (most != null) {
      out.println(most.mostRunLine());
    }
    out.println(
        (result.paysUpToRunning() == null
                ? "speculation pays at no measured load"
                : "pays up to " + result.paysUpToRunning() + " running requests")
            + result.breaksEvenClause());
    String line = finishedLine();
    if (line != null) {
      out.println(line);
    }
    finished.mixDiffers().ifPresent(m -> out.println("the speed-up " + m));
    if (schedule.isEmpty()) {
      return;
    }
    out.println("advice by load (from the measured speed-up and acceptance in each bucket):");
    for (LoadSchedule.Entry e : schedule) {
      out.printf(
          Locale.ROOT,
          "  %7s  k=%d  expected %.2fx (measured %.2fx at the current k)%n",
          e.runningMin() == e.runningMax()
              ? Integer.toString(e.runningMin())
              : e.runningMin() + "-" + e.runningMax(),
          e.k(),
          e.expectedSpeedup(),
          e.measuredSpeedup());
    }
    StringBuilder vllm = new StringBuilder();
    for (int[] r : LoadSchedule.vllm(schedule)) {
      vllm.append(vllm.length() == 0 ? "" : ", ").append(java.util.Arrays.toString(r));
    }
    out.println(
        "  vLLM speculative_config: \"num_speculative_tokens_per_batch_size\": [" + vllm + "]");
    StringBuilder trt = new StringBuilder();
    LoadSchedule.trtllm(schedule)
        .forEach(
            (b, k) -> trt.append(trt.length() == 0 ? "" : ", ").append(b).append(": ").append(k));
    out.println("  TensorRT-LLM speculative_config: draft_len_schedule: {" + trt + "}");
  }

  private static String seconds(Instant t) {
    return t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
  }

  private static String number(Double v) {
    return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
  }

  private static Double round(Double v, int digits) {
    if (v == null || !Double.isFinite(v)) {
      return null;
    }
    double scale = Math.pow(10, digits);
    return Math.round(v * scale) / scale;
  }
}
