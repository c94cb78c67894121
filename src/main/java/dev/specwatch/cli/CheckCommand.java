package dev.specwatch.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.alerting.Learner;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.schedule.NoDataHints;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.EvaluationJson;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.SignalValues;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = {
      "Evaluates every recipe once against Prometheus and prints its state and signals.",
      "Sends no notifications. Exit 0: all recipes healthy, idle or low on traffic; 1: a threshold is breached; 2: config or usage error; 3: datasource error; 4: nothing breached, but a recipe reads no data (it cannot alert; --allow-no-data: 0)."
    })
final class CheckCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Mixin OutputOption output;

  @Option(
      names = "--time",
      paramLabel = "TIME",
      description =
          "Evaluate at this time instead of now: RFC 3339 (2026-11-30T12:00:00Z) or"
              + " Unix seconds.")
  Instant time;

  @Option(
      names = "--allow-no-data",
      description =
          "Exit 0 (not 4) when recipes read no data, e.g. for deployments that are not up yet.")
  boolean allowNoData;

  @Option(
      names = "--window",
      paramLabel = "DURATION",
      description = "Override evaluation.window, e.g. 15m.")
  Duration window;

  @Override
  public Integer call() throws JsonProcessingException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    SpecwatchConfig c = config.load();
    Duration w = window == null ? c.evaluation().window() : window;
    PrometheusClient client = new PrometheusClient(c.prometheus());
    Evaluator evaluator =
        new Evaluator(
            client,
            Clock.systemUTC(),
            new dev.specwatch.signals.SpeedupReadings(client, c.recipes()));
    Evaluation evaluation = evaluator.evaluate(c.recipes(), w, Optional.ofNullable(time));
    Map<String, String> detection = detection(c, client, evaluation);
    Map<String, String> noData =
        evaluation.anyDatasourceError()
            ? Map.of()
            : NoDataHints.of(c.recipes(), evaluation, client, Optional.ofNullable(time));
    if (output.json()) {
      Map<String, Object> root = EvaluationJson.of(evaluation);
      for (Object r : (List<?>) root.get("recipes")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> recipe = (Map<String, Object>) r;
        String status = detection.get((String) recipe.get("name"));
        if (status != null) {
          recipe.put("detection", Map.of("status", status));
        }
        String hint = noData.get((String) recipe.get("name"));
        if (hint != null) {
          recipe.put("no_data_hint", hint);
        }
      }
      out.println(EvaluationJson.MAPPER.writeValueAsString(root));
    } else {
      out.print(table(evaluation));
      detection.forEach((recipe, status) -> out.println(recipe + ": detection " + status));
      noData.forEach((recipe, hint) -> out.println(recipe + ": no data: " + hint));
      evaluation.recipes().stream()
          .filter(r -> r.coveredSeconds().isPresent())
          .forEach(
              r ->
                  out.println(
                      r.recipe()
                          + ": "
                          + EvaluationJson.windowNotFull(r.coveredSeconds().get())
                          + " (the "
                          + dev.specwatch.model.Durations.format(w)
                          + " window)"));
      Map<String, List<String>> byError = new LinkedHashMap<>();
      evaluation.recipes().stream()
          .filter(r -> r.error().isPresent())
          .forEach(
              r ->
                  byError.computeIfAbsent(r.error().get(), k -> new ArrayList<>()).add(r.recipe()));
      byError.forEach(
          (message, recipes) ->
              err.println(
                  "specwatch check: datasource error for "
                      + String.join(", ", recipes)
                      + ": "
                      + message));
    }
    out.flush();
    err.flush();
    if (evaluation.anyDatasourceError()) {
      return ExitCodes.DATASOURCE;
    }
    if (evaluation.anyBreach()) {
      return ExitCodes.SOFTWARE;
    }
    List<String> withoutData =
        evaluation.recipes().stream()
            .filter(r -> r.state() == dev.specwatch.signals.RecipeState.NO_DATA)
            .map(RecipeSnapshot::recipe)
            .toList();
    if (!withoutData.isEmpty() && !allowNoData) {
      err.println(
          "specwatch check: "
              + withoutData.size()
              + " recipe(s) read no data and cannot alert: "
              + String.join(", ", withoutData)
              + " (exit 4; --allow-no-data to accept)");
      err.flush();
      return ExitCodes.NO_DATA;
    }
    return ExitCodes.OK;
  }

  /**
   * For recipes with change detection or sequential thresholds, what their history supports: the
   * learned model, or why there is none yet ({@code learning: …}). A one-shot check has no test
   * statistics; the daemon's are in {@code /api/v1/detectors}.
   */
  private static Map<String, String> detection(
      SpecwatchConfig c, PrometheusClient client, Evaluation evaluation) {
    Map<String, String> out = new LinkedHashMap<>();
    Learner learner = new Learner(client);
    for (Policy p : c.policies()) {
      if (!p.usesIncrements()) {
        continue;
      }
      try {
        out.put(
            p.recipe(),
            learner.learnNow(p, c.evaluation().interval(), evaluation.evaluatedAt()).status());
      } catch (PrometheusException e) {
        out.put(p.recipe(), "not learned: " + e.getMessage());
      }
    }
    return out;
  }

  static String table(Evaluation e) {
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "RECIPE",
          "ENGINE",
          "STATE",
          "ACCEPT",
          "MEAN_LEN",
          "BY_POSITION",
          "DRAFT_TOK/S",
          "DRAFTS",
          "BREACHES"
        });
    List<String> notes = new ArrayList<>();
    for (RecipeSnapshot r : e.recipes()) {
      SignalValues s = r.signals();
      // "~" marks an approximate figure; "n/a" positions the servers do not export
      String approx = r.form().map(f -> f.approximate()).orElse(false) ? "~" : "";
      boolean noPositions = r.form().map(f -> !f.positionsExported()).orElse(false);
      r.form().ifPresent(f -> f.notes().forEach(n -> notes.add(r.recipe() + ": " + n)));
      if (s.plain() && s.generationTokensPerSecond() != null) {
        notes.add(
            r.recipe()
                + ": no speculation: "
                + fmt(s.generationTokensPerSecond(), 1)
                + " tokens/s at "
                + fmt(s.runningRequests(), 1)
                + " running requests ("
                + fmt(s.tokensPerSecondPerRequest(), 1)
                + " per request)");
      }
      rows.add(
          new String[] {
            r.recipe(),
            r.engine(),
            r.state().key(),
            prefixed(approx, fmt(s.acceptanceRate(), 3)),
            prefixed(approx, fmt(s.meanAcceptedLength(), 2)),
            noPositions
                ? "n/a"
                : s.positionAcceptance().stream()
                    .map(v -> fmt(v, 2))
                    .collect(Collectors.joining(" ")),
            fmt(s.draftTokensPerSecond(), 1),
            fmt(s.draftsInWindow(), 0),
            r.breaches().stream()
                .map(
                    b ->
                        b.id()
                            + " "
                            + fmt(b.value(), 3)
                            + b.direction().operator()
                            + fmt(b.threshold(), 3))
                .collect(Collectors.joining(", "))
          });
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    out.append("evaluated at ")
        .append(e.evaluatedAt())
        .append(" over ")
        .append(Durations.format(e.window()))
        .append('\n');
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(String.format(Locale.ROOT, "%-" + widths[i] + "s", row[i]));
        if (i < row.length - 1) {
          line.append("  ");
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    notes.forEach(n -> out.append(n).append('\n'));
    return out.toString();
  }

  private static String prefixed(String prefix, String value) {
    return value.equals("-") ? value : prefix + value;
  }

  private static String fmt(Double value, int decimals) {
    return value == null ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
  }
}
