package dev.specwatch.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.advisor.Advisor;
import dev.specwatch.advisor.LoadSchedule;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.EvaluationJson;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.signals.RecipeSnapshot;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "advise",
    mixinStandardHelpOptions = true,
    description = {
      "Recommends num_speculative_tokens for a recipe from its measured acceptance, and measures what speculation buys by load against a baseline.",
      "Prints the expected tokens per verification step and the modelled speed-up E_k / (1 + c*k) for every k up to the configured one and two beyond (extrapolated); with a baseline (the policy's speedup_baseline, --baseline, or --baseline-from/--baseline-to) the measured per-request speed-up by running requests (docs/SPEEDUP.md)."
    })
final class AdviseCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Option(names = "--recipe", required = true, paramLabel = "NAME", description = "The recipe.")
  String recipe;

  @Option(
      names = "--window",
      paramLabel = "DURATION",
      defaultValue = "24h",
      description = "Measure over this window (default: ${DEFAULT-VALUE}).")
  Duration window;

  @Option(
      names = "--draft-cost",
      paramLabel = "C",
      description =
          "Cost of one draft token relative to a target forward pass (default: from"
              + " TensorRT-LLM's draft_overhead where exported, else 0.1; an MTP head is cheap, a"
              + " separate draft model less so).")
  Double draftCost;

  @Option(
      names = "--baseline",
      paramLabel = "RECIPE",
      description =
          "Measure the speed-up against this recipe over the same window (default: the policy's"
              + " speedup_baseline).")
  String baseline;

  @Option(
      names = "--baseline-from",
      paramLabel = "TIME",
      description =
          "Measure against the recipe's own history from this time (before a change, e.g. before"
              + " MTP was turned on): RFC 3339 or Unix seconds; with --baseline-to.")
  Instant baselineFrom;

  @Option(names = "--baseline-to", paramLabel = "TIME", description = "End of --baseline-from.")
  Instant baselineTo;

  @Option(
      names = "--step",
      paramLabel = "DURATION",
      defaultValue = "1m",
      description = "One step of the speed-up measurement (default: ${DEFAULT-VALUE}).")
  Duration step;

  @Option(
      names = "--time",
      paramLabel = "TIME",
      description = "End the window at this time instead of now: RFC 3339 or Unix seconds.")
  Instant time;

  @Mixin OutputOption output;

  @Override
  public Integer call() throws JsonProcessingException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (draftCost != null && draftCost < 0) {
      throw new UsageException("--draft-cost must be 0 or more");
    }
    if ((baselineFrom == null) != (baselineTo == null)) {
      throw new UsageException("--baseline-from and --baseline-to go together");
    }
    if (baselineFrom != null && !baselineFrom.isBefore(baselineTo)) {
      throw new UsageException("--baseline-from must be before --baseline-to");
    }
    if (baselineFrom != null && baseline != null) {
      throw new UsageException("either --baseline or --baseline-from/--baseline-to, not both");
    }
    SpecwatchConfig c = config.load();
    Policy policy = Recipes.find(c, recipe);
    PrometheusClient prometheus = new PrometheusClient(c.prometheus());
    // Rates over the data the window holds: Prometheus' rate() divides an increase by the whole
    // range, so a day's window over 7 minutes of data would read a 200th of the traffic.
    Coverage coverage = covered(c, policy);
    Evaluation e =
        new Evaluator(prometheus, Clock.systemUTC())
            .evaluate(List.of(policy), coverage.window(), Optional.ofNullable(time));
    RecipeSnapshot s = e.recipes().get(0);
    if (s.error().isPresent()) {
      err.println("specwatch advise: " + s.error().get());
      return ExitCodes.DATASOURCE;
    }
    SpeedupReport speedup;
    try {
      speedup = speedup(c, policy, prometheus, e.evaluatedAt());
    } catch (dev.specwatch.prometheus.PrometheusException ex) {
      err.println("specwatch advise: speed-up: " + ex.getMessage());
      return ExitCodes.DATASOURCE;
    }
    String over = Durations.format(window);
    Optional<String> kNote = kNote(s, policy);
    if (!output.json()) {
      kNote.ifPresent(n -> out.println("note: " + n));
    }
    if (s.signals().positionAcceptance().isEmpty()
        || s.signals().positionAcceptance().stream().anyMatch(v -> v == null)) {
      if (!output.json()) {
        speedup.print(out);
      }
      err.println(
          "specwatch advise: no per-position acceptance for "
              + recipe
              + " over "
              + over
              + " (state "
              + s.state().key()
              + "; SGLang exports none)");
      return ExitCodes.SOFTWARE;
    }
    DraftCost cost = DraftCost.of(draftCost, s.signals().draftOverhead(), policy);
    Advisor.Advice advice =
        Advisor.advise(
            s.signals().positionAcceptance(),
            policy.numSpeculativeTokens(),
            cost.value(),
            s.signals().draftsInWindow() == null ? 0 : s.signals().draftsInWindow());
    String covered = coverage.text();
    if (output.json()) {
      Map<String, Object> root = json(advice, over, covered, s, cost.value());
      LoadSchedule.Overall overall = speedup.overall();
      if (overall != null) {
        root.put("recommended_k", overall.k());
        root.put("gain", overall.expectedSpeedup() / overall.measuredSpeedup() - 1);
        root.put("recommended_from", "measured speed-up by load, averaged over the hours it ran");
        root.put("warning", null);
      } else {
        root.put("recommended_from", "acceptance model (no measured speed-up)");
      }
      root.put("draft_cost_source", cost.source());
      root.put("efficiency", EvaluationJson.efficiency(s.signals()));
      root.put("speedup", speedup.json());
      root.put("advice_by_load", speedup.scheduleJson());
      root.put("k_note", kNote.orElse(null));
      out.println(EvaluationJson.MAPPER.writeValueAsString(root));
      return ExitCodes.OK;
    }
    out.printf(
        Locale.ROOT,
        "%s: %s, over %s, draft cost %.3f (%s)%n",
        recipe,
        advice.basis(),
        covered,
        cost.value(),
        cost.source());
    if (!advice.enough()) {
      out.println(advice.warning() + "; keeping num_speculative_tokens=" + advice.currentK());
      speedup.print(out);
      return ExitCodes.OK;
    }
    LoadSchedule.Overall overall = speedup.overall();
    out.println(
        overall == null
            ? "   k  tokens/step  modelled speed-up (E_k / (1 + c*k), not measured)"
            : "   k  tokens/step  modelled from acceptance alone (E_k / (1 + c*k), not measured;"
                + " the recommendation below is from the measured speed-up)");
    for (Advisor.Option o : advice.options()) {
      out.printf(
          Locale.ROOT,
          "%4d  %11.2f  %7.2fx%s%s%n",
          o.k(),
          o.expectedTokens(),
          o.speedup(),
          o.k() == advice.currentK() ? "  (current)" : "",
          o.extrapolated() ? "  (extrapolated)" : "");
    }
    if (overall != null) {
      // One story: the headline is the by-load advice below taken over the load the recipe ran.
      out.printf(
          Locale.ROOT,
          "recommended: num_speculative_tokens=%d for the load it ran (expected %.2fx, measured"
              + " %.2fx at k=%d, averaged over %.1f measured hours; by load below)%n",
          overall.k(),
          overall.expectedSpeedup(),
          overall.measuredSpeedup(),
          advice.currentK(),
          overall.hours());
    } else {
      out.printf(
          Locale.ROOT,
          "recommended: num_speculative_tokens=%d (%+.1f %% vs k=%d)%n",
          advice.recommended().k(),
          advice.gain() * 100,
          advice.currentK());
    }
    if (advice.warning() != null && overall == null) {
      out.println("warning: " + advice.warning());
    }
    out.println(efficiency(s));
    speedup.print(out);
    return ExitCodes.OK;
  }

  /**
   * What the servers said of k where it is not the policy's, and, where they moved it within the
   * window, that the advice is for the bound the engine adapts under; empty where they agree.
   */
  static Optional<String> kNote(RecipeSnapshot s, Policy policy) {
    return s.form()
        .flatMap(f -> Optional.ofNullable(f.k()))
        .flatMap(
            k ->
                k.note(policy.numSpeculativeTokens())
                    .map(
                        n ->
                            k.min() != k.max()
                                ? n
                                    + ". The engine picks k itself: advice on k is advice on the"
                                    + " highest it may use (num_speculative_tokens, SGLang's"
                                    + " --speculative-num-steps and --speculative-num-draft-tokens)"
                                : n));
  }

  /** One line: conditional acceptance, wasted draft tokens, output from drafts (measured). */
  static String efficiency(RecipeSnapshot s) {
    StringBuilder line = new StringBuilder("efficiency: conditional acceptance ");
    List<Double> c = s.signals().conditionalAcceptance();
    for (int i = 0; i < c.size(); i++) {
      line.append(i == 0 ? "" : " · ")
          .append(c.get(i) == null ? "-" : String.format(Locale.ROOT, "%.2f", c.get(i)));
    }
    Double rejected = s.signals().rejectedDraftTokensPerSecond();
    Double share = s.signals().outputShareFromDrafts();
    line.append(
        rejected == null
            ? ""
            : String.format(Locale.ROOT, "; %.1f rejected draft tokens/s", rejected));
    line.append(
        share == null
            ? ""
            : String.format(
                Locale.ROOT, "; %.0f %% of output tokens were accepted drafts", share * 100));
    return line.toString();
  }

  /** The measured speed-up, or why there is none. */
  private SpeedupReport speedup(
      SpecwatchConfig c, Policy policy, PrometheusClient prometheus, Instant end)
      throws dev.specwatch.prometheus.PrometheusException {
    Instant start = end.minus(window);
    if (baselineFrom != null) {
      return SpeedupReport.beforeAndAfter(
              prometheus, policy, baselineFrom, baselineTo, start, end, step)
          .withSchedule(positions(prometheus, policy, start, end), policy.numSpeculativeTokens());
    }
    String name = baseline != null ? baseline : policy.speedupBaseline().orElse(null);
    if (name == null) {
      return SpeedupReport.notMeasured(
          "no baseline: name a deployment of the same model without speculation with"
              + " speedup_baseline, or give --baseline-from/--baseline-to; tokens per step"
              + " below are measured, the speed-up column is a model");
    }
    Policy other = Recipes.findAny(c, name);
    if (other.recipe().equals(policy.recipe())) {
      throw new UsageException("--baseline names the recipe itself; use --baseline-from/-to");
    }
    return SpeedupReport.against(prometheus, policy, other, start, end, step)
        .withSchedule(positions(prometheus, policy, start, end), policy.numSpeculativeTokens());
  }

  private java.util.Map<Integer, List<Double>> positions(
      PrometheusClient prometheus, Policy policy, Instant start, Instant end)
      throws dev.specwatch.prometheus.PrometheusException {
    return dev.specwatch.signals.LoadHistory.positionsByLoad(prometheus, policy, start, end, step);
  }

  /**
   * What the window holds: {@code text} "24h", or "3m 10s of data (asked for 24h)" when Prometheus
   * holds less; {@code window} the one rates are taken over (the data's span, rounded up to a
   * minute, when that is shorter than asked).
   */
  record Coverage(Duration window, String text) {}

  /** How much of the window the data covers, as of {@code --time} when given. */
  private Coverage covered(SpecwatchConfig c, Policy policy) {
    String asked = Durations.format(window);
    Coverage whole = new Coverage(window, asked);
    Optional<String> series =
        dev.specwatch.signals.EngineProfile.of(policy.engine()).coverageSeries();
    if (series.isEmpty()) {
      return whole;
    }
    // 8,640 steps over the window (10 s for 24h): the first sample is found to within a step.
    Duration resolution = Duration.ofSeconds(Math.max(1, window.toSeconds() / 8640));
    try {
      String promql =
          "min(min_over_time(timestamp("
              + series.get()
              + dev.specwatch.signals.PromQl.selector(policy.matchers())
              + ")["
              + dev.specwatch.signals.PromQl.range(window)
              + ":"
              + dev.specwatch.signals.PromQl.range(resolution)
              + "]))";
      // As of --time when given: what the data covered then, not now.
      Instant at = time == null ? Instant.now() : time;
      List<dev.specwatch.prometheus.Sample> first =
          new PrometheusClient(c.prometheus()).query(promql, Optional.of(at)).samples();
      if (first.isEmpty() || !Double.isFinite(first.get(0).value())) {
        return whole;
      }
      Duration held =
          Duration.ofSeconds(Math.max(0, at.getEpochSecond() - (long) first.get(0).value()));
      if (held.compareTo(window.multipliedBy(95).dividedBy(100)) >= 0) {
        return whole;
      }
      Duration minutes = Duration.ofMinutes(Math.max(1, (held.toSeconds() + 59) / 60));
      return new Coverage(
          minutes.compareTo(window) < 0 ? minutes : window,
          Durations.format(held) + " of data (asked for " + asked + ")");
    } catch (dev.specwatch.prometheus.PrometheusException e) {
      return whole;
    }
  }

  private Map<String, Object> json(
      Advisor.Advice advice, String over, String covered, RecipeSnapshot s, double cost) {
    List<Object> options = new ArrayList<>();
    for (Advisor.Option o : advice.options()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("k", o.k());
      m.put("tokens_per_step", o.expectedTokens());
      m.put("speedup", o.speedup());
      m.put("current", o.k() == advice.currentK());
      m.put("extrapolated", o.extrapolated());
      options.add(m);
    }
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("recipe", recipe);
    root.put("window", over);
    root.put("covered", covered);
    root.put("basis", advice.basis());
    root.put("enough_data", advice.enough());
    root.put("drafts", s.signals().draftsInWindow());
    root.put("draft_cost", cost);
    root.put("current_k", advice.currentK());
    root.put("options", options);
    root.put("recommended_k", advice.enough() ? advice.recommended().k() : null);
    root.put("gain", advice.enough() ? advice.gain() : null);
    root.put("warning", advice.warning());
    return root;
  }
}
