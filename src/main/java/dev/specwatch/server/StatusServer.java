package dev.specwatch.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.specwatch.model.Secret;
import dev.specwatch.signals.EvaluationJson;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's HTTP endpoints: {@code /healthz}, {@code /readyz}, {@code /metrics}, {@code
 * /api/v1/recipes}, {@code /api/v1/alerts} and {@code POST /-/reload}. With {@code
 * server.bearer_token}, {@code /api} and {@code /-/reload} require it. Responses never contain
 * secrets: they are built from evaluations and alert state, whose errors name endpoints only.
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(StatusServer.class);

  /** What the server shows; implemented by the daemon. */
  public interface Source {
    boolean ready();

    String metrics() throws IOException;

    /** The last evaluation as {@link EvaluationJson}, or empty before the first. */
    Optional<Map<String, Object>> recipes();

    Map<String, Object> alerts();

    /** SLO status of every recipe with an slo, from the last evaluation. */
    Map<String, Object> slos();

    /** Reloads the config; returns the problems (empty when it was applied). */
    List<String> reload();
  }

  private final HttpServer server;
  private final ExecutorService executor;

  private StatusServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  public static StatusServer start(InetSocketAddress address, Optional<Secret> token, Source source)
      throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "specwatch-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/healthz", ex -> handle(ex, "GET", () -> text(200, "ok\n")));
    server.createContext(
        "/readyz",
        ex ->
            handle(
                ex,
                "GET",
                () ->
                    source.ready()
                        ? text(200, "ready\n")
                        : text(503, "not ready: no successful evaluation yet\n")));
    server.createContext(
        "/metrics",
        ex ->
            handle(
                ex,
                "GET",
                () ->
                    new Response(
                        200, "text/plain; version=0.0.4; charset=utf-8", source.metrics())));
    server.createContext(
        "/api/v1/recipes",
        ex ->
            handle(
                ex,
                "GET",
                token,
                () ->
                    source
                        .recipes()
                        .map(r -> json(200, r))
                        .orElseGet(
                            () ->
                                json(
                                    503,
                                    Map.of("status", "error", "error", "no evaluation yet")))));
    server.createContext(
        "/api/v1/alerts", ex -> handle(ex, "GET", token, () -> json(200, source.alerts())));
    server.createContext(
        "/-/reload",
        ex ->
            handle(
                ex,
                "POST",
                token,
                () -> {
                  List<String> problems = source.reload();
                  Map<String, Object> body = new LinkedHashMap<>();
                  body.put("status", problems.isEmpty() ? "ok" : "error");
                  if (!problems.isEmpty()) {
                    body.put("errors", problems);
                  }
                  return json(problems.isEmpty() ? 200 : 400, body);
                }));
    server.createContext("/", ex -> handle(ex, null, () -> text(404, "not found\n")));
    server.start();
    return new StatusServer(server, executor);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private record Response(int status, String type, String body) {}

  private interface Handler {
    Response handle() throws IOException;
  }

  private static Response text(int status, String body) {
    return new Response(status, "text/plain; charset=utf-8", body);
  }

  private static Response json(int status, Object body) {
    try {
      return new Response(
          status, "application/json", EvaluationJson.MAPPER.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      return text(500, "cannot encode the response\n");
    }
  }

  private static void handle(HttpExchange ex, String method, Handler handler) throws IOException {
    handle(ex, method, Optional.empty(), handler);
  }

  private static void handle(
      HttpExchange ex, String method, Optional<Secret> token, Handler handler) throws IOException {
    try (ex) {
      Response response;
      if (method != null && !method.equals(ex.getRequestMethod())) {
        response = text(405, "use " + method + "\n");
        ex.getResponseHeaders().set("Allow", method);
      } else if (token.isPresent() && !authorized(ex, token.get())) {
        response = text(401, "missing or wrong bearer token\n");
        ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      } else {
        try {
          response = handler.handle();
        } catch (IOException | RuntimeException e) {
          logger.error("{} {} failed", ex.getRequestMethod(), ex.getRequestURI().getPath(), e);
          response = text(500, "internal error\n");
        }
      }
      byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", response.type());
      ex.sendResponseHeaders(response.status(), body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        try (OutputStream out = ex.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }

  private static boolean authorized(HttpExchange ex, Secret token) {
    String header = ex.getRequestHeaders().getFirst("Authorization");
    byte[] expected = ("Bearer " + token.reveal()).getBytes(StandardCharsets.UTF_8);
    byte[] given = header == null ? new byte[0] : header.getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(expected, given);
  }

  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
  }
}
