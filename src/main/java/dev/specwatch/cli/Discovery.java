package dev.specwatch.cli;

import dev.specwatch.model.Engine;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Sample;
import dev.specwatch.schedule.NoDataHints;
import dev.specwatch.signals.Signal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What Prometheus says is served: every {@code (job, model_name)} that exports an engine's
 * generation-token counter, with the engine and release shape told from the series names
 * (docs/ENGINES.md), k where the series show it, traffic, and the signals specwatch can judge. Six
 * queries for the whole fleet, none per model.
 */
final class Discovery {
  /**
   * One served model.
   *
   * @param k empty where the series do not show it
   * @param kSource how k was read, or why it could not be
   * @param signals the signals specwatch can judge for it
   * @param missing what it cannot judge, and why
   */
  record Found(
      String job,
      String modelName,
      Engine engine,
      String shape,
      Optional<Integer> k,
      String kSource,
      Double generationTokensPerSecond,
      boolean speculative,
      List<String> signals,
      List<String> missing) {}

  private static final String NAMES =
      "vllm:(generation_tokens_total|num_requests_running|spec_decode_num_(drafts|draft_tokens"
          + "|accepted_tokens|accepted_tokens_per_pos)_total)"
          + "|sglang:(generation_tokens_total|num_running_reqs|spec_verify_calls_total"
          + "|spec_accept_length|spec_num_steps)"
          + "|trtllm_(generation_tokens_total|num_requests_running|spec_decode_num_draft_tokens_total"
          + "|spec_decode_drafted_tokens_total)";

  private final PrometheusClient client;
  private final Optional<Instant> at;

  Discovery(PrometheusClient client, Optional<Instant> at) {
    this.client = client;
    this.at = at;
  }

  List<Found> find() throws PrometheusException {
    Map<List<String>, Set<String>> names = new TreeMap<>(Discovery::compare);
    for (Sample s : query("group by (__name__, job, model_name) ({__name__=~\"" + NAMES + "\"})")) {
      names
          .computeIfAbsent(key(s), k -> new LinkedHashSet<>())
          .add(s.labels().getOrDefault("__name__", ""));
    }
    Map<List<String>, Double> vllmK =
        byKey(
            "count by (job, model_name) (group by (job, model_name, position)"
                + " (vllm:spec_decode_num_accepted_tokens_per_pos_total))");
    Map<List<String>, Double> trtK =
        byKey(
            "count by (job, model_name) (group by (job, model_name, token_position)"
                + " (trtllm_spec_decode_drafted_tokens_total))");
    Map<List<String>, Double> sglangK = byKey("max by (job, model_name) (sglang:spec_num_steps)");
    Map<List<String>, Double> dpRanks =
        byKey(
            "count by (job, model_name) (group by (job, model_name, dp_rank)"
                + " (sglang:spec_accept_length))");
    Map<List<String>, Double> traffic =
        byKey(
            "sum by (job, model_name) (rate({__name__=~\""
                + String.join("|", new java.util.TreeSet<>(NoDataHints.SERVED.values()))
                + "\"}[5m]))");
    List<Found> out = new ArrayList<>();
    names.forEach(
        (key, present) -> {
          for (Engine engine : Engine.values()) {
            if (present.contains(NoDataHints.SERVED.get(engine))) {
              out.add(found(key, engine, present, vllmK, trtK, sglangK, dpRanks, traffic.get(key)));
            }
          }
        });
    return out;
  }

  private static Found found(
      List<String> key,
      Engine engine,
      Set<String> present,
      Map<List<String>, Double> vllmK,
      Map<List<String>, Double> trtK,
      Map<List<String>, Double> sglangK,
      Map<List<String>, Double> dpRanks,
      Double traffic) {
    List<String> signals = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    String shape;
    Optional<Integer> k = Optional.empty();
    String kSource;
    boolean speculative;
    boolean positions = false;
    boolean running;
    switch (engine) {
      case VLLM -> {
        speculative = present.contains("vllm:spec_decode_num_draft_tokens_total");
        boolean full = present.contains("vllm:spec_decode_num_drafts_total");
        positions = present.contains("vllm:spec_decode_num_accepted_tokens_per_pos_total");
        shape = full ? "per-position" : "token-counters-only (before vllm PR #16665)";
        k = Optional.ofNullable(vllmK.get(key)).map(Double::intValue);
        kSource =
            k.isPresent()
                ? "positions exported (vllm:spec_decode_num_accepted_tokens_per_pos_total)"
                : "not exported by this vLLM: set num_speculative_tokens from its"
                    + " --speculative-config";
        running = present.contains("vllm:num_requests_running");
        if (speculative && !positions) {
          missing.add("position_acceptance: not exported by this vLLM");
        }
      }
      case SGLANG -> {
        boolean verify = present.contains("sglang:spec_verify_calls_total");
        speculative = verify || present.contains("sglang:spec_accept_length");
        Double ranks = dpRanks.get(key);
        shape =
            (verify ? "verify-calls" : "gauges-only (approximate)")
                + (ranks != null && ranks > 1
                    ? ", DP attention (" + ranks.intValue() + " schedulers)"
                    : "");
        k = Optional.ofNullable(sglangK.get(key)).map(Double::intValue);
        kSource =
            k.isPresent()
                ? "sglang:spec_num_steps (the active speculative_num_steps)"
                : "not exported by this SGLang: set num_speculative_tokens to its"
                    + " --speculative-num-steps";
        running = present.contains("sglang:num_running_reqs");
        missing.add("position_acceptance: not exported by SGLang");
        if (speculative && !verify) {
          missing.add(
              "exact accepted length: no sglang:spec_verify_calls_total, the gauge is"
                  + " approximate");
        }
      }
      default -> {
        speculative = present.contains("trtllm_spec_decode_num_draft_tokens_total");
        positions = present.contains("trtllm_spec_decode_drafted_tokens_total");
        shape = positions ? "per-position" : "iteration stats only";
        k = Optional.ofNullable(trtK.get(key)).map(Double::intValue);
        kSource =
            k.isPresent()
                ? "token positions exported (trtllm_spec_decode_drafted_tokens_total)"
                : "not exported: set num_speculative_tokens to the max_draft_len of its"
                    + " speculative_config";
        running = present.contains("trtllm_num_requests_running");
        if (speculative && !positions) {
          missing.add("position_acceptance: trtllm-serve fills it only with return_perf_metrics");
        }
      }
    }
    if (!speculative) {
      return new Found(
          key.get(0),
          key.get(1),
          engine,
          "no speculative decoding",
          Optional.empty(),
          "no speculative decoding series",
          traffic,
          false,
          List.of(Signal.GENERATION_TOKENS_PER_SECOND.key()),
          List.of("speculative decoding: not on for this model (no draft series)"));
    }
    signals.add(Signal.ACCEPTANCE_RATE.key());
    signals.add(Signal.MEAN_ACCEPTED_LENGTH.key());
    if (positions) {
      signals.add(Signal.POSITION_ACCEPTANCE.key());
    }
    signals.add(Signal.DRAFT_TOKENS_PER_SECOND.key());
    signals.add(Signal.ACCEPTED_TOKENS_PER_SECOND.key());
    signals.add(Signal.GENERATION_TOKENS_PER_SECOND.key());
    signals.add(Signal.DRAFTS_IN_WINDOW.key());
    if (running) {
      signals.add(Signal.RUNNING_REQUESTS.key());
    } else {
      missing.add("running_requests: no running-requests gauge");
    }
    if (k.isEmpty()) {
      missing.add("k: " + kSource);
    }
    return new Found(
        key.get(0), key.get(1), engine, shape, k, kSource, traffic, true, signals, missing);
  }

  private List<Sample> query(String promql) throws PrometheusException {
    return client.query(promql, at).samples();
  }

  private Map<List<String>, Double> byKey(String promql) throws PrometheusException {
    Map<List<String>, Double> out = new HashMap<>();
    for (Sample s : query(promql)) {
      if (Double.isFinite(s.value())) {
        out.put(key(s), s.value());
      }
    }
    return out;
  }

  private static List<String> key(Sample s) {
    return List.of(s.labels().getOrDefault("job", ""), s.labels().getOrDefault("model_name", ""));
  }

  private static int compare(List<String> a, List<String> b) {
    int byModel = a.get(1).compareTo(b.get(1));
    return byModel != 0 ? byModel : a.get(0).compareTo(b.get(0));
  }
}
