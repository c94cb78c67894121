package dev.specwatch.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.advisor.Advisor;
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
      "Recommends num_speculative_tokens for a recipe from its measured acceptance.",
      "Prints the expected tokens per verification step and the estimated speed-up E_k / (1 + c*k) for every k up to the configured one and two beyond (extrapolated)."
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
      defaultValue = "0.1",
      description =
          "Cost of one draft token relative to a target forward pass (default:"
              + " ${DEFAULT-VALUE}; an MTP head is cheap, a separate draft model less so).")
  double draftCost;

  @Mixin OutputOption output;

  @Override
  public Integer call() throws JsonProcessingException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (draftCost < 0) {
      throw new UsageException("--draft-cost must be 0 or more");
    }
    SpecwatchConfig c = config.load();
    Policy policy = Recipes.find(c, recipe);
    Evaluation e =
        new Evaluator(new PrometheusClient(c.prometheus()), Clock.systemUTC())
            .evaluate(List.of(policy), window, Optional.empty());
    RecipeSnapshot s = e.recipes().get(0);
    if (s.error().isPresent()) {
      err.println("specwatch advise: " + s.error().get());
      return ExitCodes.DATASOURCE;
    }
    String over = Durations.format(window);
    if (s.signals().positionAcceptance().isEmpty()
        || s.signals().positionAcceptance().stream().anyMatch(v -> v == null)) {
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
    Advisor.Advice advice =
        Advisor.advise(
            s.signals().positionAcceptance(),
            policy.numSpeculativeTokens(),
            draftCost,
            s.signals().draftsInWindow() == null ? 0 : s.signals().draftsInWindow());
    String covered = covered(c, policy);
    if (output.json()) {
      out.println(EvaluationJson.MAPPER.writeValueAsString(json(advice, over, covered, s)));
      return ExitCodes.OK;
    }
    out.printf(
        Locale.ROOT,
        "%s: %s, over %s, draft cost %.2f%n",
        recipe,
        advice.basis(),
        covered,
        draftCost);
    if (!advice.enough()) {
      out.println(advice.warning() + "; keeping num_speculative_tokens=" + advice.currentK());
      return ExitCodes.OK;
    }
    out.println("   k  tokens/step  speed-up");
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
    out.printf(
        Locale.ROOT,
        "recommended: num_speculative_tokens=%d (%+.1f %% vs k=%d)%n",
        advice.recommended().k(),
        advice.gain() * 100,
        advice.currentK());
    if (advice.warning() != null) {
      out.println("warning: " + advice.warning());
    }
    return ExitCodes.OK;
  }

  /**
   * How much of the window the data actually covers: "24h", or "3m 10s of data (asked for 24h)"
   * when Prometheus holds less.
   */
  private String covered(SpecwatchConfig c, Policy policy) {
    String asked = Durations.format(window);
    if (policy.engine() != dev.specwatch.model.Engine.VLLM) {
      return asked;
    }
    // 8,640 steps over the window (10 s for 24h): the first sample is found to within a step.
    Duration resolution = Duration.ofSeconds(Math.max(1, window.toSeconds() / 8640));
    try {
      String promql =
          "min(min_over_time(timestamp("
              + dev.specwatch.signals.VllmProfile.DRAFTS
              + dev.specwatch.signals.PromQl.selector(policy.matchers())
              + ")["
              + dev.specwatch.signals.PromQl.range(window)
              + ":"
              + dev.specwatch.signals.PromQl.range(resolution)
              + "]))";
      List<dev.specwatch.prometheus.Sample> first =
          new PrometheusClient(c.prometheus()).query(promql, Optional.empty()).samples();
      if (first.isEmpty() || !Double.isFinite(first.get(0).value())) {
        return asked;
      }
      Duration held =
          Duration.ofSeconds(
              Math.max(0, java.time.Instant.now().getEpochSecond() - (long) first.get(0).value()));
      return held.compareTo(window.multipliedBy(95).dividedBy(100)) >= 0
          ? asked
          : Durations.format(held) + " of data (asked for " + asked + ")";
    } catch (dev.specwatch.prometheus.PrometheusException e) {
      return asked;
    }
  }

  private Map<String, Object> json(
      Advisor.Advice advice, String over, String covered, RecipeSnapshot s) {
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
    root.put("draft_cost", draftCost);
    root.put("current_k", advice.currentK());
    root.put("options", options);
    root.put("recommended_k", advice.enough() ? advice.recommended().k() : null);
    root.put("gain", advice.enough() ? advice.gain() : null);
    root.put("warning", advice.warning());
    return root;
  }
}
