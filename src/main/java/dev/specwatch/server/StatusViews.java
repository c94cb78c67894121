package dev.specwatch.server;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.EvaluationJson;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.store.StateHealth;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON documents of the status API. Field names (snake_case) are the contract documented in
 * docs/OPERATIONS.md; instants are RFC 3339 strings.
 */
public final class StatusViews {
  private StatusViews() {}

  /** {@code GET /api/v1/alerts}. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Alerts(List<Alert> alerts, int transitionsQueued) {}

  /** One pending or firing alert. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Alert(
      String id,
      String recipe,
      String rule,
      Integer position,
      String state,
      Double value,
      double threshold,
      String severity,
      String activeSince,
      String firingSince,
      String frozenSince) {}

  /** {@code GET /api/v1/slos}. */
  public record Slos(List<Slo> slos) {}

  /** One recipe's SLO status: {@code recipe} plus the fields of check's {@code slo} object. */
  public record Slo(String recipe, Map<String, Object> status) {
    @JsonAnyGetter
    public Map<String, Object> fields() {
      return status;
    }

    @Override
    @com.fasterxml.jackson.annotation.JsonIgnore
    public Map<String, Object> status() {
      return status;
    }
  }

  /** {@code GET /api/v1/detectors}: what each recipe's sequential tests stand on. */
  public record Detectors(List<Detector> detectors) {}

  /**
   * One recipe's learned model (or why there is none) and its tests' state.
   *
   * @param status e.g. "learned from 7.0 days: level 0.612 …" or "learning: 6h of active history,
   *     needs 24h"
   * @param wander the learned long-run wander per step (a standard deviation), against the learned
   *     level
   * @param localWander the same against the hour before (the sudden-drop test's), null when the
   *     model predates it
   * @param modelInDoubt why the history does not fit the learned model (docs/DETECTION.md); null
   *     when it does, or before a model
   * @param wanderWidening how many times the blocks' wander the tests allow for: the wander over
   *     hours or the tail of the blocks' excursions below the level (a graded doubt, at least 1,
   *     already in {@code wander}); null before a model
   * @param fallWidening how many times wider than the model the history's falls from the hour
   *     before are (a graded doubt, at least 1: the sudden-drop test's widening); null before a
   *     model
   * @param shortExcursions per window length ("2m"), how deep the history's short windows go once
   *     per false_alarm_interval (−0.31: 31 % below the learned level); a page on an excursion that
   *     short waits until it is deeper than that would be at the floor (docs/DETECTION.md, "Short
   *     excursions"); null before a model or without a record
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Detector(
      String recipe,
      String status,
      String learnedAt,
      Double level,
      Double overdispersion,
      Double wander,
      Double localWander,
      String modelInDoubt,
      Double wanderWidening,
      Double fallWidening,
      Map<String, Double> shortExcursions,
      List<Test> tests) {}

  /**
   * One sequential test: alarmed or not, since when its current excursion runs, and, alarmed, since
   * when its level has been back above the clear line (the change rule resolves after 30 minutes of
   * it: docs/DETECTION.md, "Recovery by a run"), else null.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Test(
      String id,
      boolean alarmed,
      String since,
      Double observed,
      Double expected,
      String clearSince) {}

  public static Detectors detectors(AlertState state) {
    // The tests grouped by recipe in one pass: matching every recipe against every test took a
    // minute at 10,000 recipes (docs/PERFORMANCE.md, 2026-12-06).
    Map<String, List<Test>> byRecipe = new HashMap<>();
    state
        .detectors()
        .forEach(
            (id, d) ->
                byRecipe
                    .computeIfAbsent(AlertKey.parse(id).recipe(), r -> new ArrayList<>())
                    .add(
                        new Test(
                            id,
                            d.alarmed(),
                            text(d.since()),
                            finite(d.observed()),
                            finite(d.expected()),
                            d.alarmed() ? text(d.clearSince()) : null)));
    List<Detector> out = new ArrayList<>();
    state
        .models()
        .forEach(
            (recipe, m) -> {
              List<Test> tests = byRecipe.getOrDefault(recipe, List.of());
              var model = m.model();
              out.add(
                  new Detector(
                      recipe,
                      m.status(),
                      text(m.attemptedAt()),
                      model == null ? null : model.level(),
                      model == null ? null : model.phi(),
                      model == null ? null : Math.sqrt(model.wander()),
                      model == null || model.localWander() == null
                          ? null
                          : Math.sqrt(model.localWander()),
                      model == null ? null : model.doubt(),
                      model == null ? null : model.hoursWidening(),
                      model == null ? null : model.widening(),
                      model == null || model.shortExcursions() == null
                          ? null
                          : shortExcursions(model.shortExcursions()),
                      tests));
            });
    return new Detectors(out);
  }

  private static Map<String, Double> shortExcursions(
      List<dev.specwatch.detect.NoiseModel.ShortExcursion> record) {
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    record.forEach(e -> out.put(dev.specwatch.model.Durations.format(e.length()), e.depth()));
    return out;
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  public static Alerts alerts(AlertState state) {
    List<Alert> alerts = new ArrayList<>();
    for (ActiveAlert a : state.alerts().values()) {
      alerts.add(
          new Alert(
              a.id(),
              a.recipe(),
              a.rule(),
              a.position(),
              a.phase().name().toLowerCase(Locale.ROOT),
              a.value(),
              a.threshold(),
              a.severity().key(),
              a.activeSince().toString(),
              text(a.firingSince()),
              text(a.frozenSince())));
    }
    return new Alerts(alerts, state.queued().size());
  }

  /** SLO status of every recipe with an slo at the last evaluation; empty before the first. */
  public static Slos slos(Evaluation e) {
    List<Slo> slos = new ArrayList<>();
    if (e != null) {
      for (RecipeSnapshot r : e.recipes()) {
        r.slo().ifPresent(st -> slos.add(new Slo(r.recipe(), EvaluationJson.slo(st))));
      }
    }
    return new Slos(slos);
  }

  /**
   * {@code GET /api/v1/recipes}: the last evaluation (the {@code check --output json} document),
   * each recipe with the recipe file its policy was imported from, when it was.
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> recipes(
      Evaluation e, List<Policy> policies, StatusServer.Source source) {
    Map<String, Object> root = EvaluationJson.of(e);
    Map<String, Policy.ImportedFrom> from = new java.util.HashMap<>();
    policies.forEach(p -> p.importedFrom().ifPresent(f -> from.put(p.recipe(), f)));
    for (Object r : (List<Object>) root.get("recipes")) {
      Map<String, Object> recipe = (Map<String, Object>) r;
      String name = (String) recipe.get("name");
      // The web UI's 6-hour sparkline: 5-minute points, null where idle (cached per evaluation).
      recipe.put(
          Boolean.FALSE.equals(recipe.get("speculative")) ? "throughput_6h" : "acceptance_6h",
          source.sparkline(name, e));
      source.noDataHint(name).ifPresent(h -> recipe.put("no_data_hint", h));
      Policy.ImportedFrom f = from.get(name);
      if (f != null) {
        recipe.put("imported_from", Map.of("recipe", f.written(), "method", f.method()));
      }
    }
    return root;
  }

  /**
   * What the status page shows of the running config: never a secret.
   *
   * @param notifiers "name (type)"
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Config(
      String version,
      List<String> notifiers,
      String evaluation,
      String prometheus,
      List<String> recipes) {}

  /** The status page's summary of a config: names, types, URLs; never a secret. */
  public static Config config(SpecwatchConfig c, String version) {
    return new Config(
        version == null ? "dev" : version,
        c.notifiers().stream().map(n -> n.name() + " (" + n.type() + ")").toList(),
        "every "
            + Durations.format(c.evaluation().interval())
            + " over "
            + Durations.format(c.evaluation().window()),
        dev.specwatch.model.Redaction.url(c.prometheus().url()),
        c.recipes().stream().map(Policy::recipe).toList());
  }

  /**
   * {@code GET /api/v1/history?since=24h}: transitions since then (at most 7 days), oldest first:
   * what the web UI's alert history shows.
   */
  static Response history(StatusServer.Source s, Request r) throws java.io.IOException {
    java.util.Optional<java.time.Duration> since =
        Durations.parse(r.query().getOrDefault("since", "24h"));
    if (since.isEmpty() || since.get().compareTo(java.time.Duration.ofDays(7)) > 0) {
      return Response.json(
          400, Map.of("status", "error", "error", "since must be a duration up to 7d, e.g. 24h"));
    }
    List<Object> out = new ArrayList<>();
    for (dev.specwatch.alerting.Transition t : s.history(Instant.now().minus(since.get()))) {
      Map<String, Object> m = new java.util.LinkedHashMap<>();
      m.put("at", t.at().toString());
      m.put("alert_id", t.alertId());
      m.put("recipe", t.recipe());
      m.put("rule", t.rule());
      m.put("position", t.position());
      m.put("kind", t.kind().name().toLowerCase(Locale.ROOT));
      m.put("reason", t.reason());
      m.put("value", t.value());
      m.put("silenced", t.silenced());
      m.put("sequence", t.sequence());
      out.add(m);
    }
    return Response.json(200, Map.of("transitions", out));
  }

  /** {@code GET /api/v1/status}: is the daemon well, and what did it lose. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Status(
      boolean ready,
      String notReadyReason,
      StateDir stateDir,
      String lastEvaluation,
      int outboxDepth,
      int transitionsQueued,
      Config config,
      Map<String, SpecwatchMetrics.NotifierHealth> notifiers) {}

  /** The state directory: writable now, and the damaged files set aside at start. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record StateDir(
      String path,
      boolean writable,
      String problem,
      long writeFailures,
      List<Recovery> recovered) {}

  /** A damaged state file: where it went and what was lost. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Recovery(String file, String movedTo, String lost, String at) {}

  public static StateDir stateDir(StateHealth health) {
    return new StateDir(
        health.location(),
        health.readiness().isEmpty(),
        health.readiness().orElse(null),
        health.failures(),
        health.recoveries().stream()
            .map(r -> new Recovery(r.file(), r.movedTo(), r.lost(), text(r.at())))
            .toList());
  }

  private static String text(Instant t) {
    return t == null ? null : t.toString();
  }
}
