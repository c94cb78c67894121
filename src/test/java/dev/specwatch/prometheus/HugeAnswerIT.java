package dev.specwatch.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.specwatch.testing.DaemonProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile datasource answers every query with a well-formed Prometheus vector of 40 MiB or 1 GiB,
 * streamed without a length. The jar under the shipped heap ({@code -Xmx128m}, exit on
 * OutOfMemoryError) reads at most an eighth of its heap of it, says so, and exits 3 (the datasource
 * failed), where before a 40 MiB answer under the default 64 MiB {@code max_response_size} killed
 * it.
 */
class HugeAnswerIT {
  @TempDir Path dir;

  @Test
  void answersOf40MiBAndOneGibibyteAreRefusedAtTheLimitWithoutRunningOutOfMemory()
      throws Exception {
    // 40 MiB is under the default max_response_size: before, it was read whole, copied and parsed
    // (the daemon, with the rest of its heap in use, died of OutOfMemoryError); 1 GiB was refused
    // at 64 MiB, after buffering 64 MiB of a 128 MiB heap.
    for (long size : new long[] {40L << 20, 1L << 30}) {
      refusedWithoutRunningOutOfMemory(size);
    }
  }

  private void refusedWithoutRunningOutOfMemory(long size) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, 0);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(
                "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                    .getBytes(StandardCharsets.UTF_8));
            byte[] series =
                ("{\"metric\":{\"job\":\"vllm\",\"model_name\":\"it/huge\",\"pad\":\""
                        + "x".repeat(900)
                        + "\"},\"value\":[1796300000,\"1\"]},")
                    .getBytes(StandardCharsets.UTF_8);
            long sent = 0;
            while (sent < size) {
              out.write(series);
              sent += series.length;
            }
            out.write(
                "{\"metric\":{\"job\":\"vllm\",\"model_name\":\"it/huge\"},\"value\":[1796300000,\"1\"]}]}}"
                    .getBytes(StandardCharsets.UTF_8));
          } catch (IOException e) {
            // The client hung up at its limit: what this test wants.
            exchange.close();
          }
        });
    server.start();
    try {
      Path run = Files.createDirectories(dir.resolve(Long.toString(size)));
      Path alerts = Files.createDirectories(run.resolve("alerts"));
      Files.writeString(
          alerts.resolve("huge.yaml"),
          "recipe: huge\nmatch: {job: vllm, model_name: it/huge}\nnum_speculative_tokens: 3\n"
              + "thresholds:\n  acceptance_rate: {below: 0.5}\n");
      Path config =
          DaemonProcess.Config.of(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
              .write(run.resolve("specwatch.yaml"));
      DaemonProcess.Outcome r =
          DaemonProcess.runToEnd(
              List.of("env", "JAVA_TOOL_OPTIONS=-Xmx128m -XX:+ExitOnOutOfMemoryError"),
              DaemonProcess.jarPath(),
              "check",
              "--config",
              config.toString());
      assertThat(r.output())
          .doesNotContain("java.lang.OutOfMemoryError")
          .doesNotContain("Terminating due");
      // An eighth of the heap: 16 MiB under -Xmx128m, a little less where the JVM keeps some.
      assertThat(r.output())
          .containsPattern(
              "over the limit of 1[0-9]{7} bytes \\(an eighth of the heap, below"
                  + " prometheus.max_response_size\\)");
      assertThat(r.exit()).as(r.output()).isEqualTo(3);
    } finally {
      server.stop(0);
    }
  }
}
