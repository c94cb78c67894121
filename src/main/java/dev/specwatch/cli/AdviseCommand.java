package dev.specwatch.cli;

import dev.specwatch.advisor.Advisor;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.signals.RecipeSnapshot;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
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
      "Recommends num_speculative_tokens for a recipe from its measured per-position acceptance:",
      "expected tokens per verification step and estimated speed-up E_k / (1 + c*k) for every k",
      "up to the configured one and two beyond (extrapolated)."
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
  String window;

  @Option(
      names = "--draft-cost",
      paramLabel = "C",
      defaultValue = "0.1",
      description =
          "Cost of one draft token relative to a target forward pass (default:"
              + " ${DEFAULT-VALUE}; an MTP head is cheap, a separate draft model less so).")
  double draftCost;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<Duration> w = Durations.parse(window);
    if (w.isEmpty() || w.get().isZero() || draftCost < 0) {
      err.println("specwatch advise: --window expects a duration like 24h, --draft-cost >= 0");
      return ExitCodes.INVALID_INPUT;
    }
    Optional<SpecwatchConfig> c = config.load(err);
    if (c.isEmpty()) {
      return ExitCodes.INVALID_INPUT;
    }
    Optional<Policy> policy =
        c.get().policies().stream().filter(p -> p.recipe().equals(recipe)).findFirst();
    if (policy.isEmpty()) {
      err.println("specwatch advise: no recipe '" + recipe + "'");
      return ExitCodes.INVALID_INPUT;
    }
    Evaluation e =
        new Evaluator(new PrometheusClient(c.get().prometheus()), Clock.systemUTC())
            .evaluate(List.of(policy.get()), w.get(), Optional.empty());
    RecipeSnapshot s = e.recipes().get(0);
    if (s.error().isPresent()) {
      err.println("specwatch advise: " + s.error().get());
      return ExitCodes.DATASOURCE;
    }
    if (s.signals().positionAcceptance().isEmpty()
        || s.signals().positionAcceptance().stream().anyMatch(v -> v == null)) {
      err.println(
          "specwatch advise: no per-position acceptance for "
              + recipe
              + " over "
              + window
              + " (state "
              + s.state().key()
              + "; SGLang exports none)");
      return ExitCodes.SOFTWARE;
    }
    Advisor.Advice advice =
        Advisor.advise(
            s.signals().positionAcceptance(),
            policy.get().numSpeculativeTokens(),
            draftCost,
            s.signals().draftsInWindow() == null ? 0 : s.signals().draftsInWindow());
    out.printf(
        Locale.ROOT,
        "%s over %s (%.0f drafts), draft cost %.2f%n",
        recipe,
        window,
        s.signals().draftsInWindow(),
        draftCost);
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
}
