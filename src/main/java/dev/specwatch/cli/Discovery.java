package dev.specwatch.cli;

import dev.specwatch.model.Engine;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Sample;
import dev.specwatch.signals.Discovered;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.Signal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What Prometheus says is served: every {@code (job, model_name)} that exports an engine's
 * generation-token counter or its speculative series, with the engine and release shape told from
 * the series names by the engine's profile (docs/ENGINES.md), k where the series show it, traffic,
 * and the signals specwatch can judge. Six queries for the whole fleet, none per model.
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

  private final PrometheusClient client;
  private final Optional<Instant> at;

  Discovery(PrometheusClient client, Optional<Instant> at) {
    this.client = client;
    this.at = at;
  }

  /**
   * Every model some engine's profile recognises: by its {@link EngineProfile#SERVED} counter, or
   * by its speculative series where that counter is missing (TensorRT-LLM counts generation tokens
   * only when a request finishes). One query for the series names, one per profile figure, one for
   * the traffic: six for the whole fleet today.
   */
  List<Found> find() throws PrometheusException {
    Set<String> wanted = new TreeSet<>();
    for (Engine engine : Engine.values()) {
      wanted.addAll(EngineProfile.of(engine).discoverySeries());
    }
    Map<List<String>, Set<String>> names = new TreeMap<>(Discovery::compare);
    String regex = String.join("|", wanted);
    for (Sample s : query("group by (__name__, job, model_name) ({__name__=~\"" + regex + "\"})")) {
      names
          .computeIfAbsent(key(s), k -> new LinkedHashSet<>())
          .add(s.labels().getOrDefault("__name__", ""));
    }
    Map<Engine, Map<String, Map<List<String>, Double>>> figures = new EnumMap<>(Engine.class);
    for (Engine engine : Engine.values()) {
      Map<String, Map<List<String>, Double>> byName = new TreeMap<>();
      for (Map.Entry<String, String> f :
          new TreeMap<>(EngineProfile.of(engine).discoveryFigures()).entrySet()) {
        byName.put(f.getKey(), byKey(f.getValue()));
      }
      figures.put(engine, byName);
    }
    Map<List<String>, Double> traffic =
        byKey(
            "sum by (job, model_name) (rate({__name__=~\""
                + String.join("|", new TreeSet<>(EngineProfile.SERVED.values()))
                + "\"}[5m]))");
    List<Found> out = new ArrayList<>();
    names.forEach(
        (key, present) -> {
          for (Engine engine : Engine.values()) {
            EngineProfile profile = EngineProfile.of(engine);
            boolean served = present.contains(EngineProfile.SERVED.get(engine));
            if (served || profile.speculativeSeries().stream().anyMatch(present::contains)) {
              Map<String, Double> mine = new HashMap<>();
              figures
                  .get(engine)
                  .forEach(
                      (name, values) -> {
                        if (values.containsKey(key)) {
                          mine.put(name, values.get(key));
                        }
                      });
              Discovered d = profile.discovered(new Discovered.Series(present, mine));
              out.add(found(key, engine, served, d, traffic.get(key)));
            }
          }
        });
    return out;
  }

  private static Found found(
      List<String> key, Engine engine, boolean served, Discovered d, Double traffic) {
    // A placeholder model_name (trtllm-serve's "undefined") names nothing: the model is its job's.
    Optional<Map.Entry<String, String>> placeholder =
        EngineProfile.of(engine).placeholderModelName().filter(p -> p.getKey().equals(key.get(1)));
    String modelName = placeholder.isPresent() ? "" : key.get(1);
    if (!d.speculative()) {
      return new Found(
          key.get(0),
          modelName,
          engine,
          "no speculative decoding",
          Optional.empty(),
          "no speculative decoding series",
          traffic,
          false,
          List.of(Signal.GENERATION_TOKENS_PER_SECOND.key()),
          List.of("speculative decoding: not on for this model (no draft series)"));
    }
    List<String> signals = new ArrayList<>();
    List<String> missing = new ArrayList<>(d.missing());
    signals.add(Signal.ACCEPTANCE_RATE.key());
    signals.add(Signal.MEAN_ACCEPTED_LENGTH.key());
    if (d.positions()) {
      signals.add(Signal.POSITION_ACCEPTANCE.key());
    }
    signals.add(Signal.DRAFT_TOKENS_PER_SECOND.key());
    signals.add(Signal.ACCEPTED_TOKENS_PER_SECOND.key());
    if (served) {
      signals.add(Signal.GENERATION_TOKENS_PER_SECOND.key());
    } else {
      missing.add(
          Signal.GENERATION_TOKENS_PER_SECOND.key()
              + ": no "
              + EngineProfile.SERVED.get(engine)
              + " series (the speed-up and the digest's throughput need it)");
    }
    signals.add(Signal.DRAFTS_IN_WINDOW.key());
    if (d.running()) {
      signals.add(Signal.RUNNING_REQUESTS.key());
    } else {
      missing.add("running_requests: no running-requests gauge");
    }
    if (d.k().isEmpty()) {
      missing.add("k: " + d.kSource());
    }
    placeholder.ifPresent(
        p -> missing.add("model_name: " + p.getValue() + ": the policy matches its job"));
    return new Found(
        key.get(0),
        modelName,
        engine,
        d.shape(),
        d.k(),
        d.kSource(),
        traffic,
        true,
        signals,
        missing);
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
