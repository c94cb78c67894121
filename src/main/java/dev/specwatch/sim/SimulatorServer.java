package dev.specwatch.sim;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves a {@link Simulator} over HTTP: {@code /metrics} like vLLM, and {@code /health}. */
public final class SimulatorServer implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(SimulatorServer.class);
  private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private SimulatorServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /** Starts serving on {@code address}; port 0 picks a free port (see {@link #port()}). */
  public static SimulatorServer start(Simulator simulator, InetSocketAddress address)
      throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "specwatch-sim-http-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    // trtllm-serve serves its Prometheus metrics at /prometheus/metrics (its /metrics is JSON
    // iteration stats; tensorrt_llm/serve/openai_server.py): the simulator answers at both.
    for (String path : List.of("/metrics", "/prometheus/metrics")) {
      server.createContext(
          path,
          exchange -> {
            try (exchange) {
              byte[] body = simulator.exposition().getBytes(StandardCharsets.UTF_8);
              respond(exchange, 200, TEXT_FORMAT, body);
            } catch (RuntimeException e) {
              logger.error("rendering {} failed", path, e);
            }
          });
    }
    server.createContext(
        "/health",
        exchange -> {
          try (exchange) {
            respond(exchange, 200, "text/plain; charset=utf-8", new byte[0]);
          }
        });
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            String text = "specwatch simulate: vLLM-compatible metrics at /metrics\n";
            int status = exchange.getRequestURI().getPath().equals("/") ? 200 : 404;
            respond(
                exchange,
                status,
                "text/plain; charset=utf-8",
                text.getBytes(StandardCharsets.UTF_8));
          }
        });
    server.start();
    return new SimulatorServer(server, executor);
  }

  private static void respond(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head || body.length == 0 ? -1 : body.length);
    if (!head && body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public String host() {
    return server.getAddress().getHostString();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
