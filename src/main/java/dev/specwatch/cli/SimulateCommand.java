package dev.specwatch.cli;

import dev.specwatch.model.Durations;
import dev.specwatch.model.ListenAddress;
import dev.specwatch.recipes.Recipe;
import dev.specwatch.recipes.RecipeReader;
import dev.specwatch.sim.ModelScenario;
import dev.specwatch.sim.Scenario;
import dev.specwatch.sim.ScenarioLoader;
import dev.specwatch.sim.Simulator;
import dev.specwatch.sim.SimulatorServer;
import dev.specwatch.sim.SlackSink;
import dev.specwatch.yaml.InvalidInputException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "simulate",
    subcommands = {SimulateCommand.Slack.class},
    mixinStandardHelpOptions = true,
    description = {
      "Serves a vLLM-compatible /metrics endpoint driven by a scenario.",
      "Phases of traffic with per-position acceptance, idle gaps, counter resets and data-parallel engines. Without --scenario it serves the built-in demo scenario."
    })
final class SimulateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--scenario",
      paramLabel = "FILE",
      description = "Scenario YAML (docs/SIMULATOR.md).")
  Path scenarioFile;

  @Option(
      names = "--recipe",
      paramLabel = "FILE",
      description =
          "A spark-vllm-docker recipe: serve its model name and num_speculative_tokens, steady"
              + " traffic with typical MTP acceptance (instead of --scenario).")
  Path recipeFile;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:8000",
      description = "Address to serve on (default: ${DEFAULT-VALUE}).")
  String listen;

  @Option(
      names = "--print-at",
      paramLabel = "DURATION",
      description = "Print the exposition at this offset into the scenario (e.g. 90s) and exit.")
  String printAt;

  @Option(
      names = "--history",
      paramLabel = "DURATION",
      description =
          "Write the scenario's vLLM history of this long, ending now, as OpenMetrics to"
              + " --history-out (for promtool tsdb create-blocks-from openmetrics) and exit.")
  Duration history;

  @Option(names = "--history-out", paramLabel = "FILE", description = "Where --history goes.")
  Path historyOut;

  @Option(
      names = "--history-job",
      paramLabel = "JOB",
      defaultValue = "vllm",
      description = "The job label of the history's series (default: ${DEFAULT-VALUE}).")
  String historyJob;

  @Option(
      names = "--history-instance",
      paramLabel = "HOST:PORT",
      description =
          "The instance label of the history's series: the scrape target of the live simulator,"
              + " so that history and live scrapes are one series (default: none).")
  String historyInstance;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Scenario scenario;
    if (scenarioFile != null && recipeFile != null) {
      throw new UsageException("--scenario and --recipe are alternatives; give one");
    }
    try {
      if (recipeFile != null) {
        scenario = ScenarioLoader.load(recipeScenario(RecipeReader.read(recipeFile)));
      } else {
        scenario =
            scenarioFile == null ? ScenarioLoader.loadDefault() : ScenarioLoader.load(scenarioFile);
      }
    } catch (InvalidInputException e) {
      e.problems().forEach(err::println);
      return ExitCodes.INVALID_INPUT;
    }
    if (history != null) {
      if (historyOut == null) {
        throw new UsageException("--history needs --history-out FILE");
      }
      if (!historyJob.matches("[A-Za-z0-9_:.-]+")) {
        throw new UsageException("--history-job: letters, digits and _:.- only");
      }
      if (historyInstance != null && !historyInstance.matches("[A-Za-z0-9_:.\\[\\]-]+")) {
        throw new UsageException("--history-instance: a host:port");
      }
      java.time.Instant end = java.time.Instant.now();
      java.time.Instant from = end.minus(history);
      String text =
          new Simulator(scenario, Clock.fixed(from, java.time.ZoneOffset.UTC))
              .openMetricsHistory(from, end, Duration.ofSeconds(30), historyJob);
      if (historyInstance != null) {
        String job = "{job=\"" + historyJob + "\",";
        text = text.replace(job, job + "instance=\"" + historyInstance + "\",");
      }
      java.nio.file.Files.writeString(historyOut, text, java.nio.charset.StandardCharsets.UTF_8);
      out.println("wrote " + Durations.format(history) + " of history to " + historyOut);
      return ExitCodes.OK;
    }
    Simulator simulator = new Simulator(scenario, Clock.systemUTC());
    if (printAt != null) {
      Optional<Duration> at = Durations.parse(printAt);
      if (at.isEmpty()) {
        err.println(
            "specwatch simulate: --print-at expects a duration like 90s, got '" + printAt + "'");
        return ExitCodes.INVALID_INPUT;
      }
      out.print(simulator.exposition(at.get()));
      out.flush();
      return ExitCodes.OK;
    }
    Optional<InetSocketAddress> address =
        ListenAddress.parse(listen).map(ListenAddress::socketAddress);
    if (address.isEmpty()) {
      err.println("specwatch simulate: --listen expects HOST:PORT, got '" + listen + "'");
      return ExitCodes.INVALID_INPUT;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    try (SimulatorServer server = SimulatorServer.start(simulator, address.get())) {
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown, "specwatch-sim-stop"));
      out.printf(
          "specwatch simulate: serving scenario '%s' on http://%s:%d/metrics%n",
          scenario.name(), server.host(), server.port());
      for (ModelScenario model : scenario.models()) {
        out.printf(
            "  %s: %d engine(s), %d phase(s)%s%n",
            model.modelName(),
            model.engines(),
            model.phases().size(),
            model.repeat() ? ", repeating" : "");
      }
      out.flush();
      stopped.await();
    }
    return ExitCodes.OK;
  }

  /** A one-model scenario file for a recipe: its model name and k, steady healthy traffic. */
  static Path recipeScenario(Recipe recipe) throws IOException {
    if (recipe.speculation().isEmpty()) {
      throw new UsageException(
          recipe.file() + " does not use speculative decoding: nothing to simulate");
    }
    int k = recipe.speculation().get().k();
    List<String> acceptance = new java.util.ArrayList<>();
    for (int i = 0; i < k; i++) {
      // A typical MTP head: ~0.85 at the first position, decaying by ~0.8 per position.
      acceptance.add(String.format(java.util.Locale.ROOT, "%.3f", 0.85 * Math.pow(0.8, i)));
    }
    Path file = Files.createTempFile("specwatch-recipe-", ".yaml");
    file.toFile().deleteOnExit();
    Files.writeString(
        file,
        "name: recipe-"
            + recipe.stem()
            + "\nmodels:\n  - model_name: \""
            + recipe.modelName().replace("\"", "\\\"")
            + "\"\n    num_speculative_tokens: "
            + k
            + "\n    phases:\n      - {name: steady, requests_per_second: 2, position_acceptance: ["
            + String.join(", ", acceptance)
            + "]}\n");
    return file;
  }

  @Command(
      name = "slack",
      mixinStandardHelpOptions = true,
      description = {
        "Serves a stand-in for the Slack Web API that prints every message it receives.",
        "For demos: point a slack notifier's api_url at http://HOST:PORT/api/."
      })
  static final class Slack implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--listen",
        paramLabel = "HOST:PORT",
        defaultValue = "127.0.0.1:18080",
        description = "Address to serve on (default: ${DEFAULT-VALUE}).")
    String listen;

    @Override
    public Integer call() throws IOException, InterruptedException {
      Optional<InetSocketAddress> address =
          ListenAddress.parse(listen).map(ListenAddress::socketAddress);
      if (address.isEmpty()) {
        spec.commandLine().getErr().println("specwatch simulate slack: --listen expects HOST:PORT");
        return ExitCodes.INVALID_INPUT;
      }
      CountDownLatch stopped = new CountDownLatch(1);
      SlackSink sink = SlackSink.start(address.get(), spec.commandLine().getOut());
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown, "specwatch-sink-stop"));
      spec.commandLine()
          .getErr()
          .printf(
              "specwatch simulate slack: Slack Web API stand-in on" + " http://%s/api/ (port %d)%n",
              listen, sink.port());
      try {
        stopped.await();
      } finally {
        sink.close();
      }
      return ExitCodes.OK;
    }
  }
}
