package dev.specwatch.bench;

import com.sun.net.httpserver.HttpServer;
import dev.specwatch.sim.Scenario;
import dev.specwatch.sim.ScenarioLoader;
import dev.specwatch.sim.Simulator;
import dev.specwatch.sim.SimulatorServer;
import dev.specwatch.testing.PrometheusServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * `make bench` (footprint part): specwatch beside vmalert on the same rules, the same Prometheus
 * and the same interval. The simulator serves {@code RECIPES} vLLM models (a tenth of them with an
 * MTP head that regressed), one real Prometheus scrapes it every 5 s; {@code specwatch run} (the
 * shaded jar, with the JVM flags read from the systemd unit's {@code ExecStart}, so the bench
 * measures what ships) evaluates one policy per model with two thresholds, and vmalert (Debian's
 * {@code victoria-metrics}) evaluates {@code specwatch rules render --alerts} of the same policies;
 * both every 5 s, both sending their alerts to one local receiver. After a warm-up of {@code
 * WARMUP}, it reads each process' user+system CPU ({@code /proc/PID/stat}) over {@code SECONDS},
 * samples RSS and threads ({@code /proc/PID/status}) every 5 s, and prints the peaks and the
 * ratios.
 */
public final class FootprintBench {
  static final int RECIPES = Integer.getInteger("recipes", 100);
  static final Duration WARMUP = Duration.ofSeconds(Long.getLong("warmup", 30));
  static final Duration MEASURED = Duration.ofSeconds(Long.getLong("seconds", 150));
  static final String INTERVAL = "5s";
  static final long TICKS = 100; // USER_HZ on Linux
  static final Path UNIT = Path.of("deploy/systemd/specwatch.service");

  record Reading(long rssKb, int threads, long cpuTicks) {}

  record Figures(String name, long peakRssKb, int peakThreads, double cpuSeconds) {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("specwatch-footprint-bench");
    Path scenarioFile = dir.resolve("scenario.yaml");
    Files.writeString(scenarioFile, scenario(), StandardCharsets.UTF_8);
    Scenario scenario = ScenarioLoader.load(scenarioFile);
    SimulatorServer simulator =
        SimulatorServer.start(
            new Simulator(scenario, Clock.systemUTC()), new InetSocketAddress("127.0.0.1", 0));
    AtomicLong fromSpecwatch = new AtomicLong();
    AtomicLong fromVmalert = new AtomicLong();
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          (exchange.getRequestURI().getPath().startsWith("/vmalert") ? fromVmalert : fromSpecwatch)
              .incrementAndGet();
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    receiver.start();
    String sink = "http://127.0.0.1:" + receiver.getAddress().getPort();
    try (PrometheusServer prometheus =
        PrometheusServer.builder()
            .scrapeInterval(Duration.ofSeconds(5))
            .job("vllm", "127.0.0.1:" + simulator.port())
            .start()) {
      int port = freePort();
      Path config = config(dir, prometheus.baseUri().toString(), sink, port);
      Path rules = dir.resolve("alerts.rules.yaml");
      List<String> flags = unitFlags();
      String jar = Path.of("target/specwatch.jar").toAbsolutePath().toString();
      render(jar, config, rules);
      List<String> specwatchCommand = new ArrayList<>(List.of("java"));
      specwatchCommand.addAll(flags);
      specwatchCommand.addAll(List.of("-jar", jar, "run", "--config", config.toString()));
      long launched = System.nanoTime();
      Process specwatch =
          new ProcessBuilder(specwatchCommand)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("specwatch.log").toFile())
              .start();
      Process vmalert =
          new ProcessBuilder(
                  "vmalert",
                  "-rule=" + rules,
                  "-datasource.url=" + prometheus.baseUri(),
                  "-notifier.url=" + sink + "/vmalert",
                  "-evaluationInterval=" + INTERVAL,
                  "-httpListenAddr=127.0.0.1:" + freePort())
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("vmalert.log").toFile())
              .start();
      try {
        double firstEvaluation = firstEvaluation(specwatch, port, launched, dir);
        Thread.sleep(WARMUP.toMillis());
        alive(specwatch, dir.resolve("specwatch.log"));
        alive(vmalert, dir.resolve("vmalert.log"));
        List<Figures> figures = measure(List.of(specwatch, vmalert));
        if (Boolean.getBoolean("nmt")) {
          jcmd(specwatch, "GC.heap_info");
          jcmd(specwatch, "VM.native_memory", "summary");
          Process pmap =
              new ProcessBuilder(
                      "sh", "-c", "pmap -x " + specwatch.pid() + " | sort -k3 -n -r | head -25")
                  .inheritIO()
                  .start();
          pmap.waitFor(30, TimeUnit.SECONDS);
        }
        print(flags, figures, fromSpecwatch.get(), fromVmalert.get());
        System.out.printf(
            Locale.ROOT,
            "specwatch: process start to the first evaluation done %.2f s (target < 2 s)%n",
            firstEvaluation);
      } finally {
        specwatch.destroy();
        vmalert.destroy();
        specwatch.waitFor(20, TimeUnit.SECONDS);
        vmalert.waitFor(20, TimeUnit.SECONDS);
        receiver.stop(0);
        simulator.close();
      }
    }
  }

  /** One model per recipe; every tenth one's MTP head regressed (acceptance 0.3, below 0.45). */
  static String scenario() {
    StringBuilder s = new StringBuilder("name: footprint\nmodels:\n");
    for (int i = 0; i < RECIPES; i++) {
      String acceptance = i % 10 == 0 ? "[0.5, 0.3, 0.1]" : "[0.9, 0.7, 0.5]";
      s.append("  - model_name: bench/m")
          .append(i)
          .append("\n    num_speculative_tokens: 3\n    phases:\n      - name: steady\n")
          .append("        requests_per_second: 1\n        position_acceptance: ")
          .append(acceptance)
          .append('\n');
    }
    return s.toString();
  }

  static Path config(Path dir, String prometheus, String sink, int port) throws IOException {
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    for (int i = 0; i < RECIPES; i++) {
      Files.writeString(
          alerts.resolve("r" + i + ".yaml"),
          "recipe: r"
              + i
              + "\nmatch: {job: vllm, model_name: bench/m"
              + i
              + "}\nnum_speculative_tokens: 3\nmin_drafts: 10\nfor: 30s\nkeep_firing_for: 0s\nthresholds:\n"
              + "  acceptance_rate: {below: 0.45}\n"
              + "  mean_accepted_length: {below: 2.2}\n",
          StandardCharsets.UTF_8);
    }
    Path file = dir.resolve("specwatch.yaml");
    Files.writeString(
        file,
        "prometheus: {url: \""
            + prometheus
            + "\"}\nevaluation: {interval: "
            + INTERVAL
            + ", window: 1m}\npolicies: alerts\nstate: {dir: state}\n"
            + "server: {listen: \"127.0.0.1:"
            + port
            + "\"}\nnotifiers:\n  - type: log\n  - type: webhook\n    url: \""
            + sink
            + "/specwatch\"\n",
        StandardCharsets.UTF_8);
    return file;
  }

  /** The JVM options of the systemd unit's ExecStart: what ships is what is measured. */
  static List<String> unitFlags() throws IOException {
    String override = System.getProperty("flags");
    if (override != null) {
      return List.of(override.trim().split("\\s+"));
    }
    String exec =
        Files.readAllLines(UNIT).stream()
            .filter(l -> l.startsWith("ExecStart="))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no ExecStart in " + UNIT));
    List<String> words = Arrays.asList(exec.substring("ExecStart=".length()).split("\\s+"));
    return words.subList(1, words.indexOf("-jar")).stream()
        .filter(w -> !w.equals("-XX:-MaxFDLimit"))
        .toList();
  }

  static void render(String jar, Path config, Path rules) throws Exception {
    Process p =
        new ProcessBuilder(
                "java", "-jar", jar, "rules", "render", "--alerts", "--config", config.toString())
            .redirectOutput(rules.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("specwatch rules render failed");
    }
    long alerting = Files.readAllLines(rules).stream().filter(l -> l.contains("- alert:")).count();
    if (alerting < 2L * RECIPES) {
      throw new IllegalStateException(
          "expected " + 2 * RECIPES + " alerting rules in " + rules + ", found " + alerting);
    }
  }

  /**
   * Seconds from launching the JVM to its first evaluation counted on its own /metrics (polled
   * every 20 ms; what systemd's start and a container's start cost before specwatch watches).
   */
  static double firstEvaluation(Process p, int port, long launched, Path dir) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.URI metrics = java.net.URI.create("http://127.0.0.1:" + port + "/metrics");
    while (System.nanoTime() - launched < Duration.ofSeconds(60).toNanos()) {
      alive(p, dir.resolve("specwatch.log"));
      try {
        String body =
            http.send(
                    java.net.http.HttpRequest.newBuilder(metrics).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
        if (body.lines()
            .anyMatch(
                l ->
                    l.startsWith("specwatch_evaluations_total")
                        && Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) >= 1)) {
          return (System.nanoTime() - launched) / 1e9;
        }
      } catch (IOException notListeningYet) {
        Thread.sleep(20);
        continue;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("no evaluation within 60 s");
  }

  /** With -Dnmt=true (and -XX:NativeMemoryTracking=summary in -Dflags): where the memory is. */
  static void jcmd(Process p, String... command) throws Exception {
    List<String> c = new ArrayList<>(List.of("jcmd", Long.toString(p.pid())));
    c.addAll(List.of(command));
    Process j = new ProcessBuilder(c).redirectErrorStream(true).start();
    String out = new String(j.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    j.waitFor(30, TimeUnit.SECONDS);
    out.lines()
        .filter(l -> l.contains("committed") || l.contains("used") || l.contains("total"))
        .forEach(System.out::println);
  }

  static void alive(Process p, Path log) throws IOException {
    if (!p.isAlive()) {
      throw new IllegalStateException(
          p.info().command().orElse("?") + " exited:\n" + Files.readString(log));
    }
  }

  static List<Figures> measure(List<Process> processes) throws Exception {
    long[] cpuStart = new long[processes.size()];
    long[] peakRss = new long[processes.size()];
    int[] peakThreads = new int[processes.size()];
    for (int i = 0; i < processes.size(); i++) {
      cpuStart[i] = read(processes.get(i)).cpuTicks();
    }
    long samples = MEASURED.toSeconds() / 5;
    Reading[] last = new Reading[processes.size()];
    for (long s = 0; s < samples; s++) {
      Thread.sleep(5_000);
      for (int i = 0; i < processes.size(); i++) {
        last[i] = read(processes.get(i));
        peakRss[i] = Math.max(peakRss[i], last[i].rssKb());
        peakThreads[i] = Math.max(peakThreads[i], last[i].threads());
      }
    }
    List<Figures> out = new ArrayList<>();
    String[] names = {"specwatch", "vmalert"};
    for (int i = 0; i < processes.size(); i++) {
      out.add(
          new Figures(
              names[i],
              peakRss[i],
              peakThreads[i],
              (last[i].cpuTicks() - cpuStart[i]) / (double) TICKS));
    }
    return out;
  }

  static Reading read(Process p) throws IOException {
    Path proc = Path.of("/proc/" + p.pid());
    long rss = 0;
    int threads = 0;
    for (String line : Files.readAllLines(proc.resolve("status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("\\D", ""));
      } else if (line.startsWith("Threads:")) {
        threads = Integer.parseInt(line.replaceAll("\\D", ""));
      }
    }
    String stat = Files.readString(proc.resolve("stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new Reading(rss, threads, Long.parseLong(f[11]) + Long.parseLong(f[12]));
  }

  static void print(List<String> flags, List<Figures> figures, long specwatch, long vmalert) {
    Figures sw = figures.get(0);
    Figures vm = figures.get(1);
    System.out.printf(
        Locale.ROOT,
        "%nspecwatch beside vmalert, %d recipes (%d alerting rules), every %s, %d s measured"
            + " after %d s, %s%n",
        RECIPES,
        2 * RECIPES,
        INTERVAL,
        MEASURED.toSeconds(),
        WARMUP.toSeconds(),
        LocalDate.now(Clock.systemUTC()));
    System.out.println("specwatch JVM flags (deploy/systemd/specwatch.service): " + flags);
    System.out.println("| | specwatch | vmalert | ratio | target |");
    System.out.println("| --- | ---: | ---: | ---: | ---: |");
    System.out.printf(
        Locale.ROOT,
        "| RSS, peak | %.1f MB | %.1f MB | %.1f× | ≤ 64 MB |%n",
        sw.peakRssKb() / 1024.0,
        vm.peakRssKb() / 1024.0,
        sw.peakRssKb() / (double) vm.peakRssKb());
    System.out.printf(
        Locale.ROOT, "| threads, peak | %d | %d | | ≤ 16 |%n", sw.peakThreads(), vm.peakThreads());
    System.out.printf(
        Locale.ROOT,
        "| CPU over %d s | %.2f s | %.2f s | %.2f× | ≤ 0.5× |%n",
        MEASURED.toSeconds(),
        sw.cpuSeconds(),
        vm.cpuSeconds(),
        sw.cpuSeconds() / vm.cpuSeconds());
    System.out.printf(
        Locale.ROOT,
        "alert deliveries received: specwatch %d (one per alert and change), vmalert %d (every"
            + " firing alert at every evaluation)%n",
        specwatch,
        vmalert);
    if (specwatch == 0 || vmalert == 0) {
      throw new IllegalStateException("one of the two sent no alert: the comparison is void");
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
