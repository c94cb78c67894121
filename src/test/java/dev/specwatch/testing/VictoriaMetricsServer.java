package dev.specwatch.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * VictoriaMetrics single-node from Debian's {@code victoria-metrics} package, on a free loopback
 * port, scraping targets as job {@code vllm}. Its Prometheus-compatible API is at {@link
 * #baseUri()} (the same path as Prometheus': /api/v1/query).
 */
public final class VictoriaMetricsServer implements AutoCloseable {
  private final Process process;
  private final int port;

  private VictoriaMetricsServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  public static VictoriaMetricsServer start(String target, Duration scrapeInterval)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("specwatch-victoria-");
    Path config = dir.resolve("scrape.yml");
    Files.writeString(
        config,
        "global:\n  scrape_interval: "
            + scrapeInterval.toMillis()
            + "ms\nscrape_configs:\n  - job_name: vllm\n    static_configs:\n"
            + "      - targets: ['"
            + target
            + "']\n");
    // VictoriaMetrics does not say which port it bound for :0; a port taken meanwhile makes it
    // exit at start, and another port is tried.
    return PrometheusServer.retryingPorts(port -> start(dir, config, port));
  }

  private static VictoriaMetricsServer start(Path dir, Path config, int port) throws IOException {
    Path log = dir.resolve("victoria-metrics-" + port + ".log");
    Process p =
        new ProcessBuilder(
                "/usr/bin/victoria-metrics",
                "-storageDataPath=" + dir.resolve("data"),
                "-httpListenAddr=127.0.0.1:" + port,
                "-promscrape.config=" + config,
                // Serve the freshest samples (by default the last 30 s are hidden).
                "-search.latencyOffset=1s",
                "-retentionPeriod=1d",
                "-loggerLevel=WARN")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    VictoriaMetricsServer server = new VictoriaMetricsServer(p, port);
    HttpClient http = HttpClient.newHttpClient();
    for (int i = 0; i < 100; i++) {
      if (!p.isAlive()) {
        String text = Files.readString(log);
        if (text.contains("address already in use")) {
          throw new PrometheusServer.PortTakenException(text);
        }
        throw new IllegalStateException("victoria-metrics exited: " + text);
      }
      try {
        if (send(http, server) == 200) {
          if (p.isAlive()) {
            return server;
          }
        }
      } catch (IOException e) {
        // not listening yet
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    server.close();
    throw new IllegalStateException("victoria-metrics did not start: " + Files.readString(log));
  }

  private static int send(HttpClient http, VictoriaMetricsServer server) throws IOException {
    try {
      return http.send(
              HttpRequest.newBuilder(server.baseUri().resolve("/health")).build(),
              HttpResponse.BodyHandlers.ofString())
          .statusCode();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + port);
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
