package dev.specwatch.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * For benchmarks only (tests run a real Prometheus): a local HTTP server answering every query,
 * instant or range, with the same vector of {@code n} series ({@code job="vllm",
 * model_name="m<i>"}, value 9000), so specwatch's own cost is measured without Prometheus' in the
 * numbers.
 */
public final class CannedPrometheus {
  private CannedPrometheus() {}

  public static HttpServer start(int n) throws IOException {
    StringBuilder b =
        new StringBuilder(
            "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",")
          .append("{\"metric\":{\"job\":\"vllm\",\"model_name\":\"m")
          .append(i)
          .append("\"},\"value\":[1764504000,\"9000\"]}");
    }
    byte[] body = b.append("]}}").toString().getBytes(StandardCharsets.UTF_8);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(8));
    for (String path : List.of("/api/v1/query", "/api/v1/query_range")) {
      server.createContext(
          path,
          ex -> {
            ex.getRequestBody().readAllBytes();
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
              out.write(body);
            }
          });
    }
    server.start();
    return server;
  }
}
