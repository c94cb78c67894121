package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.testing.DaemonProcess;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A datasource that accepts connections and never answers: the recipe page answers without its
 * history (saying it is loading) instead of holding a web worker for the query timeout, and asking
 * again does not start a second load.
 */
class StalledDatasourcePageIT {
  @TempDir Path dir;

  @Test
  void theRecipePageAnswersWhileTheDatasourceStalls() throws Exception {
    List<Socket> held = new CopyOnWriteArrayList<>();
    try (ServerSocket stalled = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread accept =
          new Thread(
              () -> {
                while (!stalled.isClosed()) {
                  try {
                    held.add(stalled.accept()); // read nothing, answer nothing
                  } catch (java.io.IOException e) {
                    return;
                  }
                }
              });
      accept.setDaemon(true);
      accept.start();
      DaemonProcess.policy(dir.resolve("alerts"), "mtp", "it/mtp", "");
      Path config =
          DaemonProcess.Config.of(URI.create("http://127.0.0.1:" + stalled.getLocalPort()))
              .evaluation("30s", "1m")
              .write(dir.resolve("specwatch.yaml"));
      try (var daemon =
          DaemonAccess.start(config, new ConfigLoader(k -> null), Clock.systemUTC())) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest page =
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + daemon.port() + "/recipes/mtp"))
                // Before: the page waited for the datasource's 30 s query timeout, several times.
                .timeout(Duration.ofSeconds(20))
                .build();
        for (int i = 0; i < 3; i++) {
          HttpResponse<String> r = http.send(page, HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).isEqualTo(200);
          assertThat(r.body()).contains("Prometheus has not answered yet");
        }
        assertThat(
                Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("specwatch-recipe-history-"))
                    .count())
            .as("one load for the recipe and span however many views, on at most two threads")
            .isBetween(1L, 2L);
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }
}
