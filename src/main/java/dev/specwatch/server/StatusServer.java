package dev.specwatch.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Secret;
import dev.specwatch.signals.Evaluation;
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
 * The daemon's HTTP endpoints, registered from one table ({@link #ENDPOINTS}). With {@code
 * server.bearer_token}, the API and {@code /-/reload} require it. Responses never contain secrets:
 * they are built from evaluations and alert state, whose errors name endpoints only. {@code HEAD}
 * is answered wherever {@code GET} is.
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(StatusServer.class);

  /**
   * Limits of the JDK's HTTP server, read once per process when its first server starts: a client
   * that sends a request (or reads a response) slower than this is disconnected, so half-sent
   * requests cannot hold the workers and starve /healthz or the Prometheus scrape. An operator's
   * own -D settings win.
   */
  static final Map<String, String> JDK_LIMITS =
      Map.of(
          "sun.net.httpserver.maxReqTime", "10",
          "sun.net.httpserver.maxRspTime", "30",
          "sun.net.httpserver.maxReqHeaders", "100");

  static {
    JDK_LIMITS.forEach(
        (key, value) -> {
          if (System.getProperty(key) == null) {
            System.setProperty(key, value);
          }
        });
  }

  /** Request workers; slow clients are cut off after {@code maxReqTime}. */
  static final int WORKERS = 8;

  /** What the server shows; implemented by the daemon. */
  public interface Source {
    boolean ready();

    /** Why the daemon is not ready, for {@code /readyz} (no secrets). */
    String notReadyReason();

    /** The last evaluation, or empty before the first. */
    Optional<Evaluation> lastEvaluation();

    AlertState alertState();

    /** specwatch's own metrics in the text format. */
    String metrics() throws IOException;

    /** Reloads the config; returns the problems (empty when it was applied). */
    List<String> reload();

    /** {@code /api/v1/status}: readiness, the state directory, last evaluation, outbox. */
    StatusViews.Status status() throws IOException;

    /** The running config's policies (what /api/v1/recipes adds to each recipe). */
    default List<Policy> policies() {
      return List.of();
    }
  }

  private record Response(int status, String type, String body) {}

  private interface Handler {
    Response handle(Source source) throws IOException;
  }

  /** One endpoint: its exact path, method, whether it needs the bearer token, what it answers. */
  private record Endpoint(String path, String method, boolean authenticated, Handler handler) {}

  private static final List<Endpoint> ENDPOINTS =
      List.of(
          new Endpoint("/healthz", "GET", false, s -> text(200, "ok\n")),
          new Endpoint(
              "/readyz",
              "GET",
              false,
              s ->
                  s.ready()
                      ? text(200, "ready\n")
                      : text(503, "not ready: " + s.notReadyReason() + "\n")),
          new Endpoint(
              "/metrics",
              "GET",
              false,
              s -> new Response(200, "text/plain; version=0.0.4; charset=utf-8", s.metrics())),
          new Endpoint(
              "/api/v1/recipes",
              "GET",
              true,
              s ->
                  s.lastEvaluation()
                      .map(e -> json(200, StatusViews.recipes(e, s.policies())))
                      .orElseGet(
                          () ->
                              json(503, Map.of("status", "error", "error", "no evaluation yet")))),
          new Endpoint(
              "/api/v1/alerts", "GET", true, s -> json(200, StatusViews.alerts(s.alertState()))),
          new Endpoint(
              "/api/v1/slos",
              "GET",
              true,
              s -> json(200, StatusViews.slos(s.lastEvaluation().orElse(null)))),
          new Endpoint("/api/v1/status", "GET", true, s -> json(200, s.status())),
          new Endpoint(
              "/api/v1/detectors",
              "GET",
              true,
              s -> json(200, StatusViews.detectors(s.alertState()))),
          new Endpoint("/-/reload", "POST", true, StatusServer::reload));

  /** Every path served, in table order (for tests and docs). */
  static List<String> paths() {
    return ENDPOINTS.stream().map(Endpoint::path).toList();
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
            WORKERS,
            r -> {
              Thread t = new Thread(r, "specwatch-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    Map<String, Endpoint> byPath = new LinkedHashMap<>();
    ENDPOINTS.forEach(e -> byPath.put(e.path(), e));
    // One context: every request is routed by its exact path (contexts match by prefix).
    server.createContext(
        "/", ex -> handle(ex, byPath.get(ex.getRequestURI().getPath()), token, source));
    server.start();
    return new StatusServer(server, executor);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static Response reload(Source source) {
    List<String> problems = source.reload();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", problems.isEmpty() ? "ok" : "error");
    if (!problems.isEmpty()) {
      body.put("errors", problems);
    }
    return json(problems.isEmpty() ? 200 : 400, body);
  }

  private static Response text(int status, String body) {
    return new Response(status, "text/plain; charset=utf-8", body);
  }

  private static Response json(int status, Object body) {
    try {
      return new Response(
          status, "application/json", EvaluationJson.MAPPER.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      logger.error("cannot encode the response", e);
      return text(500, "cannot encode the response\n");
    }
  }

  private static void handle(
      HttpExchange ex, Endpoint endpoint, Optional<Secret> token, Source source)
      throws IOException {
    try (ex) {
      String method = ex.getRequestMethod();
      boolean head = method.equals("HEAD");
      Response response;
      if (endpoint == null) {
        response = text(404, "not found\n");
      } else if (!method.equals(endpoint.method()) && !(head && endpoint.method().equals("GET"))) {
        response = text(405, "use " + endpoint.method() + "\n");
        ex.getResponseHeaders().set("Allow", endpoint.method());
      } else if (endpoint.authenticated() && token.isPresent() && !authorized(ex, token.get())) {
        response = text(401, "missing or wrong bearer token\n");
        ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      } else {
        try {
          response = endpoint.handler().handle(source);
        } catch (IOException | RuntimeException e) {
          logger.error("{} {} failed", method, endpoint.path(), e);
          response = text(500, "internal error\n");
        }
      }
      byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", response.type());
      if (head || body.length == 0) {
        if (head && body.length > 0) {
          ex.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
        }
        ex.sendResponseHeaders(response.status(), -1);
        return;
      }
      ex.sendResponseHeaders(response.status(), body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
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
