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
    int port = PrometheusServer.freePort();
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
            .redirectOutput(dir.resolve("victoria-metrics.log").toFile())
            .start();
    VictoriaMetricsServer server = new VictoriaMetricsServer(p, port);
    HttpClient http = HttpClient.newHttpClient();
    for (int i = 0; i < 100; i++) {
      try {
        if (http.send(
                    HttpRequest.newBuilder(server.baseUri().resolve("/health")).build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode()
            == 200) {
          return server;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    server.close();
    throw new IllegalStateException(
        "victoria-metrics did not start: " + Files.readString(dir.resolve("victoria-metrics.log")));
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
