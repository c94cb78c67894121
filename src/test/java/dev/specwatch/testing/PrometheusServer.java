package dev.specwatch.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Prometheus (the Debian package's /usr/bin/prometheus) on a free loopback port, with a
 * temporary data directory, the project's rule files and a scrape config for the given targets.
 */
public final class PrometheusServer implements AutoCloseable {
  private final Process process;
  private final Path dir;
  private final int port;

  private PrometheusServer(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static final class Builder {
    private final List<Path> ruleFiles = new ArrayList<>();
    private final Map<String, List<String>> jobs = new LinkedHashMap<>();
    private final Map<String, String> metricsPaths = new LinkedHashMap<>();
    private Duration scrapeInterval = Duration.ofSeconds(1);
    private Duration evaluationInterval = Duration.ofSeconds(1);
    private String openMetricsHistory;
    private final List<Path> historyFiles = new ArrayList<>();

    /**
     * Backfills these OpenMetrics files with promtool before Prometheus starts. promtool reads a
     * file once per two-hour block it writes, so long histories go faster as one file per day.
     */
    public Builder historyFiles(List<Path> openMetrics) {
      historyFiles.addAll(openMetrics);
      return this;
    }

    /** Backfills this OpenMetrics text with promtool before Prometheus starts. */
    public Builder history(String openMetrics) {
      this.openMetricsHistory = openMetrics;
      return this;
    }

    public Builder ruleFile(Path file) {
      ruleFiles.add(file.toAbsolutePath());
      return this;
    }

    /** Adds a scrape job with static targets ({@code host:port}). */
    public Builder job(String name, String... targets) {
      jobs.put(name, List.of(targets));
      return this;
    }

    /** Adds a scrape job whose targets serve their metrics at {@code metricsPath}. */
    public Builder job(String name, String metricsPath, List<String> targets) {
      jobs.put(name, List.copyOf(targets));
      metricsPaths.put(name, metricsPath);
      return this;
    }

    public Builder scrapeInterval(Duration interval) {
      this.scrapeInterval = interval;
      return this;
    }

    private static void backfill(Path input, Path dir) throws IOException {
      Process backfill =
          new ProcessBuilder(
                  "promtool",
                  "tsdb",
                  "create-blocks-from",
                  "openmetrics",
                  input.toString(),
                  dir.resolve("data").toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("backfill.log").toFile())
              .start();
      try {
        if (!backfill.waitFor(10, TimeUnit.MINUTES) || backfill.exitValue() != 0) {
          throw new IllegalStateException(
              "promtool backfill failed:\n" + Files.readString(dir.resolve("backfill.log")));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted during backfill");
      }
    }

    public PrometheusServer start() throws IOException {
      Path dir = Files.createTempDirectory("specwatch-prometheus-");
      StringBuilder config = new StringBuilder();
      config
          .append("global:\n")
          .append("  scrape_interval: ")
          .append(scrapeInterval.toMillis())
          .append("ms\n")
          .append("  evaluation_interval: ")
          .append(evaluationInterval.toMillis())
          .append("ms\n");
      config.append("rule_files:\n");
      for (Path rules : ruleFiles) {
        config.append("  - '").append(rules).append("'\n");
      }
      config.append("scrape_configs:\n");
      for (Map.Entry<String, List<String>> job : jobs.entrySet()) {
        config.append("  - job_name: '").append(job.getKey()).append("'\n");
        if (metricsPaths.containsKey(job.getKey())) {
          config.append("    metrics_path: '").append(metricsPaths.get(job.getKey())).append("'\n");
        }
        config.append("    static_configs:\n").append("      - targets: [");
        config.append(String.join(", ", job.getValue().stream().map(t -> "'" + t + "'").toList()));
        config.append("]\n");
      }
      Path configFile = dir.resolve("prometheus.yml");
      Files.writeString(configFile, config.toString(), StandardCharsets.UTF_8);
      Path log = dir.resolve("prometheus.log");
      List<Path> inputs = new ArrayList<>(historyFiles);
      if (openMetricsHistory != null) {
        Path input = dir.resolve("history.om");
        Files.writeString(input, openMetricsHistory, StandardCharsets.UTF_8);
        inputs.add(input);
      }
      for (Path input : inputs) {
        backfill(input, dir);
      }
      Process process =
          new ProcessBuilder(
                  prometheusBinary(),
                  "--config.file=" + configFile,
                  "--storage.tsdb.path=" + dir.resolve("data"),
                  "--web.listen-address=127.0.0.1:0",
                  "--web.enable-lifecycle",
                  "--web.enable-admin-api",
                  "--storage.tsdb.retention.time=90d",
                  // info: the line that names the port it bound
                  "--log.level=info")
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      int port;
      try {
        port =
            BoundPort.fromLog(process, log, 0, BoundPort.EXPORTER_TOOLKIT, Duration.ofSeconds(60));
      } catch (IllegalStateException e) {
        process.destroyForcibly();
        throw new IllegalStateException("prometheus did not start: " + e.getMessage(), e);
      }
      PrometheusServer server = new PrometheusServer(process, dir, port);
      server.awaitReady(log);
      return server;
    }
  }

  static String prometheusBinary() {
    for (String candidate : List.of("/usr/bin/prometheus", "/usr/local/bin/prometheus")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "prometheus is not installed: run `make deps` (Debian package 'prometheus')");
  }

  /**
   * A port free now, for a server that cannot bind port 0 and tell which it got; it may be taken
   * before that server binds it, so such a server is started with {@link #retryingPorts}.
   */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  /** A server started on a port picked by the test. */
  @FunctionalInterface
  public interface OnPort<T> {
    /**
     * Starts the server on {@code port}.
     *
     * @throws PortTakenException when it could not bind the port
     */
    T start(int port) throws IOException;
  }

  /** Thrown by {@link OnPort#start} when the port was taken before the server bound it. */
  public static final class PortTakenException extends IOException {
    private static final long serialVersionUID = 1L;

    public PortTakenException(String message) {
      super(message);
    }
  }

  /** Starts the server on a free port, and on another one while the port was taken meanwhile. */
  public static <T> T retryingPorts(OnPort<T> server) throws IOException {
    PortTakenException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      try {
        return server.start(freePort());
      } catch (PortTakenException e) {
        last = e;
      }
    }
    throw last;
  }

  private void awaitReady(Path log) throws IOException {
    Instant deadline = Instant.now().plusSeconds(60);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "prometheus exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      try {
        HttpURLConnection c = (HttpURLConnection) uri("/-/ready").toURL().openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(1000);
        if (c.getResponseCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for prometheus");
      }
    }
    close();
    throw new IllegalStateException("prometheus did not become ready:\n" + Files.readString(log));
  }

  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public URI uri(String path) {
    return baseUri().resolve(path);
  }

  public int port() {
    return port;
  }

  /**
   * Requests this Prometheus has answered on its query API ({@code /api/v1/…}) so far, from its own
   * {@code prometheus_http_requests_total} on its /metrics: what specwatch cost it, counted by it.
   */
  public long apiRequests() throws IOException, InterruptedException {
    String metrics =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(uri("/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "(?m)^prometheus_http_requests_total\\{[^}]*handler=\"/api/v1/[^\"]*\"[^}]*} (\\S+)$")
            .matcher(metrics);
    long n = 0;
    while (m.find()) {
      n += (long) Double.parseDouble(m.group(1));
    }
    return n;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
