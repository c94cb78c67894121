package dev.specwatch.bench;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.FileStateStore;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.sim.Scenario;
import dev.specwatch.sim.ScenarioLoader;
import dev.specwatch.sim.Simulator;
import dev.specwatch.sim.SimulatorServer;
import dev.specwatch.testing.LargeState;
import dev.specwatch.testing.PrometheusServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * `make scale-bench`: {@code specwatch run} (the shaded jar, with the JVM flags of the systemd
 * unit, so within the shipped {@code -Xmx}) with {@code RECIPES} policies, a third of them matching
 * nothing, learned change detection and a threshold on every recipe (the recipes with data start
 * with a learned model, as after a restart; {@code -Dlearned=false} for none), at the default 30 s
 * interval, for {@code MINUTES}, against one real Prometheus scraping the simulator's {@code 2/3 ×
 * RECIPES} vLLM models every 15 s. Every 5 minutes it prints the evaluations so far, their mean and
 * the worst 5-minute mean duration (from specwatch's own {@code
 * specwatch_evaluation_duration_seconds}), RSS ({@code /proc/PID/status}), the heap and old
 * generation in use, young and full collections and their time ({@code jstat -gc}); then the
 * summary line for docs/PERFORMANCE.md.
 */
public final class ScaleBench {
  static final int RECIPES = Integer.getInteger("recipes", 10_000);
  static final long MINUTES = Long.getLong("minutes", 60);

  /** Whether the recipes with data start with a learned model ({@code -Dlearned=false}: none). */
  static final boolean LEARNED = Boolean.parseBoolean(System.getProperty("learned", "true"));

  static final HttpClient HTTP = HttpClient.newHttpClient();

  record Gc(
      double heapUsedMb,
      double oldMb,
      long young,
      long full,
      double fullSeconds,
      double gcSeconds) {}

  public static void main(String[] args) throws Exception {
    int withData = RECIPES * 2 / 3;
    Path dir = Files.createTempDirectory("specwatch-scale-bench");
    StringBuilder s = new StringBuilder("name: scale\nmodels:\n");
    for (int i = 0; i < withData; i++) {
      s.append("  - model_name: m")
          .append(i)
          .append("\n    num_speculative_tokens: 3\n    phases:\n      - name: steady\n")
          .append(
              "        requests_per_second: 0.5\n        position_acceptance: [0.9, 0.7, 0.5]\n");
    }
    Path scenarioFile = dir.resolve("scenario.yaml");
    Files.writeString(scenarioFile, s, StandardCharsets.UTF_8);
    Scenario scenario = ScenarioLoader.load(scenarioFile);
    SimulatorServer simulator =
        SimulatorServer.start(
            new Simulator(scenario, Clock.systemUTC()), new InetSocketAddress("127.0.0.1", 0));
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    for (int i = 0; i < RECIPES; i++) {
      Files.writeString(
          alerts.resolve("r" + i + ".yaml"),
          "recipe: r"
              + i
              + "\nmatch: {job: vllm, model_name: m"
              + i
              + "}\nnum_speculative_tokens: 3\nthresholds:\n"
              + "  acceptance_rate: {below: 0.45}\n"
              + "  change: {min_relative_drop: 0.10}\n",
          StandardCharsets.UTF_8);
    }
    if (LEARNED) {
      // A daemon restarted with its recipes' normals learned (a model each, learned now, so none
      // falls due within the run): the change rules then run their tests and keep their state, as
      // in service. Without it an hour never learns one (7 days of history wanted).
      Instant learnedAt = Instant.now();
      NoiseModel model = LargeState.model(learnedAt);
      Map<String, RecipeModel> models = new HashMap<>();
      for (int i = 0; i < withData; i++) {
        models.put("r" + i, new RecipeModel(model, "learned", learnedAt, Duration.ofSeconds(30)));
      }
      new FileStateStore(Files.createDirectories(dir.resolve("state")), Clock.systemUTC())
          .save(AlertState.empty().withModels(models));
    }
    List<String> flags = FootprintBench.unitFlags();
    int port = FootprintBench.freePort();
    try (PrometheusServer prometheus =
        PrometheusServer.builder()
            .scrapeInterval(Duration.ofSeconds(15))
            .job("vllm", "127.0.0.1:" + simulator.port())
            .start()) {
      Path config = dir.resolve("specwatch.yaml");
      Files.writeString(
          config,
          "prometheus: {url: \""
              + prometheus.baseUri()
              + "\"}\npolicies: alerts\nstate: {dir: state}\nserver: {listen: \"127.0.0.1:"
              + port
              + "\"}\nnotifiers:\n  - type: log\n",
          StandardCharsets.UTF_8);
      List<String> command = new ArrayList<>(List.of("java"));
      command.addAll(flags);
      command.addAll(
          List.of(
              "-jar",
              Path.of("target/specwatch.jar").toAbsolutePath().toString(),
              "run",
              "--config",
              config.toString()));
      Process specwatch =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("specwatch.log").toFile())
              .start();
      System.out.printf(
          Locale.ROOT,
          "%d recipes (%d without data), change detection and a threshold on each (%s), 30 s"
              + " interval, %d min, flags %s, %s%n",
          RECIPES,
          RECIPES - withData,
          LEARNED ? "learned models for the " + withData + " with data" : "no learned models",
          MINUTES,
          flags,
          LocalDate.now(Clock.systemUTC()));
      System.out.println(
          "| minute | evaluations | mean s | worst 5-min mean s | CPU s / evaluation | RSS MB | heap used MB | old gen MB"
              + " | young GCs | full GCs | full GC s | all GC s |");
      System.out.println(
          "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
      double worst = 0;
      long peakRss = 0;
      double[] previous = {0, 0};
      double[] previousCpu = {0, 0};
      try {
        for (long minute = 5; minute <= MINUTES; minute += 5) {
          Thread.sleep(Duration.ofMinutes(5).toMillis());
          FootprintBench.alive(specwatch, dir.resolve("specwatch.log"));
          double[] eval = evaluations(port);
          double periodMean =
              eval[0] > previous[0] ? (eval[1] - previous[1]) / (eval[0] - previous[0]) : 0;
          worst = Math.max(worst, periodMean);
          previous = eval;
          FootprintBench.Reading reading = FootprintBench.read(specwatch);
          long rss = reading.rssKb();
          double cpu =
              eval[0] > previousCpu[1]
                  ? (reading.cpuTicks() - previousCpu[0])
                      / (double) FootprintBench.TICKS
                      / (eval[0] - previousCpu[1])
                  : 0;
          previousCpu[0] = reading.cpuTicks();
          previousCpu[1] = eval[0];
          peakRss = Math.max(peakRss, rss);
          Gc gc = jstat(specwatch.pid());
          System.out.printf(
              Locale.ROOT,
              "| %d | %.0f | %.3f | %.3f | %.3f | %.1f | %.1f | %.1f | %d | %d | %.2f | %.2f |%n",
              minute,
              eval[0],
              eval[0] > 0 ? eval[1] / eval[0] : 0,
              worst,
              cpu,
              rss / 1024.0,
              gc.heapUsedMb(),
              gc.oldMb(),
              gc.young(),
              gc.full(),
              gc.fullSeconds(),
              gc.gcSeconds());
        }
        System.out.printf(Locale.ROOT, "peak RSS %.1f MB%n", peakRss / 1024.0);
      } finally {
        specwatch.destroy();
        specwatch.waitFor(30, TimeUnit.SECONDS);
        simulator.close();
      }
    }
  }

  /** Count and sum of specwatch_evaluation_duration_seconds from specwatch's own /metrics. */
  static double[] evaluations(int port) throws Exception {
    String body =
        HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return new double[] {
      value(body, "specwatch_evaluation_duration_seconds_count"),
      value(body, "specwatch_evaluation_duration_seconds_sum")
    };
  }

  static double value(String exposition, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + "(?:\\{[^}]*})? (\\S+)").matcher(exposition);
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  /** jstat -gc: used heap (survivors, eden, old) and the collections so far. */
  static Gc jstat(long pid) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("jstat", "-gc", Long.toString(pid)).start();
    List<String> lines =
        new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    p.waitFor(30, TimeUnit.SECONDS);
    String[] head = lines.get(0).trim().split("\\s+");
    String[] row = lines.get(1).trim().split("\\s+");
    java.util.Map<String, Double> v = new java.util.HashMap<>();
    for (int i = 0; i < head.length; i++) {
      v.put(head[i], row[i].equals("-") ? 0 : Double.parseDouble(row[i]));
    }
    return new Gc(
        (v.get("S0U") + v.get("S1U") + v.get("EU") + v.get("OU")) / 1024.0,
        v.get("OU") / 1024.0,
        v.get("YGC").longValue(),
        v.get("FGC").longValue(),
        v.get("FGCT"),
        v.get("GCT"));
  }
}
