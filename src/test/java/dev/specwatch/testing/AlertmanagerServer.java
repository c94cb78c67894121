package dev.specwatch.testing;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The Debian package's Alertmanager on free loopback ports with a null receiver. */
public final class AlertmanagerServer implements AutoCloseable {
  private final Process process;
  private final Path dir;
  private final int port;

  private AlertmanagerServer(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  public static AlertmanagerServer start() throws IOException {
    Path dir = Files.createTempDirectory("specwatch-alertmanager-");
    Path config = dir.resolve("alertmanager.yml");
    Files.writeString(
        config,
        "route:\n  receiver: 'null'\n  group_wait: 1s\nreceivers:\n" + "  - name: 'null'\n");
    Path log = dir.resolve("alertmanager.log");
    Process process =
        new ProcessBuilder(
                "/usr/bin/prometheus-alertmanager",
                "--config.file=" + config,
                "--storage.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:0",
                // no gossip: a single test instance needs no cluster port
                "--cluster.listen-address=",
                "--log.level=info")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    int port;
    try {
      port = BoundPort.fromLog(process, log, 0, BoundPort.EXPORTER_TOOLKIT, Duration.ofSeconds(30));
    } catch (IllegalStateException e) {
      process.destroyForcibly();
      throw e;
    }
    AlertmanagerServer server = new AlertmanagerServer(process, dir, port);
    Instant deadline = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("alertmanager exited:\n" + Files.readString(log));
      }
      try {
        HttpURLConnection c = (HttpURLConnection) server.uri("/-/ready").toURL().openConnection();
        c.setConnectTimeout(500);
        if (c.getResponseCode() == 200) {
          return server;
        }
      } catch (IOException e) {
        // not up yet
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    server.close();
    throw new IllegalStateException("alertmanager did not become ready:\n" + Files.readString(log));
  }

  public URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
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
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // temp files; nothing to do
    }
  }
}
