package dev.specwatch.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Transition;
import dev.specwatch.ha.ClusterView;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Secret;
import dev.specwatch.server.Endpoint.Access;
import dev.specwatch.signals.Evaluation;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's HTTP endpoints, registered from two tables ({@link #API}, {@link
 * UiRoutes#ENDPOINTS}). With {@code server.bearer_token}, the API and {@code /-/reload} require it.
 * Responses never contain secrets: they are built from evaluations and alert state, whose errors
 * name endpoints only. {@code HEAD} is answered wherever {@code GET} is.
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(StatusServer.class);

  /**
   * Request workers; slow clients are cut off after {@code sun.net.httpserver.maxReqTime}, which
   * {@code Main} sets for the process (JvmSettings).
   */
  static final int WORKERS = 8;

  /** What the server shows; implemented by the daemon. */
  public interface Source {
    boolean ready();

    /** Why the daemon counts as stuck (evaluations stopped happening), for {@code /healthz}. */
    default Optional<String> stalled() {
      return Optional.empty();
    }

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

    /** Why the recipe reads no_data, from what Prometheus has; empty when it has data. */
    default Optional<String> noDataHint(String recipe) {
      return Optional.empty();
    }

    /** {@code /api/v1/cluster}: the replicas sharing the database; empty without one. */
    default Optional<ClusterView> cluster() throws IOException {
      return Optional.empty();
    }

    /**
     * Before the first evaluation, where it stands ("no evaluation yet: the first has been running
     * for 1m40s"), for /api/v1/recipes' 503.
     */
    default String beforeFirstEvaluation() {
      return "no evaluation yet";
    }

    /** The running config's policies (what /api/v1/recipes adds to each recipe). */
    default List<Policy> policies() {
      return List.of();
    }

    /** Every silence, active and expired (until pruned). */
    default List<Silence> silences() throws IOException {
      return List.of();
    }

    /** Adds a silence; IllegalArgumentException names an unknown recipe or rule. */
    default Silence addSilence(
        String recipe, Optional<String> rule, Duration duration, String comment, String author)
        throws IOException {
      throw new IllegalArgumentException("silences are not available here");
    }

    /** Ends a silence now; false when no active silence has that id. */
    default boolean expireSilence(String id) throws IOException {
      return false;
    }

    /** Transitions since {@code from} (the alert history). */
    default List<Transition> history(Instant from) throws IOException {
      return List.of();
    }

    /** A recipe's acceptance over the last 6 hours (5-minute points; null where idle). */
    default List<Double> sparkline(String recipe) {
      return List.of();
    }

    /**
     * As {@link #sparkline(String)}, for a page that already holds the last evaluation: a page of
     * every recipe passes it rather than have each row look it up again (at 10,000 recipes the
     * lookups, each merging and sorting the evaluation, made the fleet page take 5 s).
     */
    default List<Double> sparkline(String recipe, Evaluation last) {
      return sparkline(recipe);
    }

    /** The recipe page's history ({@link RecipeHistory}), its charts over {@code span}. */
    RecipeHistory recipeHistory(String recipe, Duration span);

    /** The Grafana base URL for dashboard links. */
    default Optional<URI> grafana() {
      return Optional.empty();
    }

    /** What the status page shows of the running config (no secrets). */
    default StatusViews.Config config() {
      return new StatusViews.Config("", List.of(), "", "", List.of());
    }
  }

  static final List<Endpoint> API =
      List.of(
          new Endpoint(
              "/healthz",
              "GET",
              Access.PUBLIC,
              (s, r) ->
                  s.stalled()
                      .map(why -> Response.text(503, "stuck: " + why + "\n"))
                      .orElseGet(() -> Response.text(200, "ok\n"))),
          new Endpoint(
              "/readyz",
              "GET",
              Access.PUBLIC,
              (s, r) ->
                  s.ready()
                      ? Response.text(200, "ready\n")
                      : Response.text(503, "not ready: " + s.notReadyReason() + "\n")),
          new Endpoint(
              "/metrics",
              "GET",
              Access.PUBLIC,
              (s, r) ->
                  new Response(
                      200, "text/plain; version=0.0.4; charset=utf-8", s.metrics(), Map.of())),
          new Endpoint(
              "/api/v1/recipes",
              "GET",
              Access.API,
              (s, r) ->
                  s.lastEvaluation()
                      .map(e -> Response.json(200, StatusViews.recipes(e, s.policies(), s)))
                      .orElseGet(
                          () ->
                              Response.json(
                                  503,
                                  Map.of("status", "error", "error", s.beforeFirstEvaluation())))),
          new Endpoint(
              "/api/v1/alerts",
              "GET",
              Access.API,
              (s, r) -> Response.json(200, StatusViews.alerts(s.alertState()))),
          new Endpoint(
              "/api/v1/slos",
              "GET",
              Access.API,
              (s, r) -> Response.json(200, StatusViews.slos(s.lastEvaluation().orElse(null)))),
          new Endpoint(
              "/api/v1/status", "GET", Access.API, (s, r) -> Response.json(200, s.status())),
          new Endpoint(
              "/api/v1/cluster",
              "GET",
              Access.API,
              (s, r) ->
                  Response.json(
                      200,
                      s.cluster()
                          .<Object>map(v -> v)
                          .orElse(
                              Map.of(
                                  "clustered",
                                  false,
                                  "reason",
                                  "state.backend is file: one process, no cluster")))),
          new Endpoint(
              "/api/v1/detectors",
              "GET",
              Access.API,
              (s, r) -> Response.json(200, StatusViews.detectors(s.alertState()))),
          new Endpoint(
              "/api/v1/silences",
              "GET",
              Access.API,
              (s, r) -> Response.json(200, SilenceApi.list(s.silences()))),
          new Endpoint("/api/v1/silences", "POST", Access.API_WRITE, SilenceApi::create),
          new Endpoint("/api/v1/history", "GET", Access.API, StatusViews::history),
          new Endpoint("/api/v1/silences/{}", "DELETE", Access.API_WRITE, SilenceApi::expire),
          new Endpoint("/-/reload", "POST", Access.API_WRITE, (s, r) -> reload(s)));

  /** Every path served, in table order (for tests and docs). */
  static List<String> paths() {
    return API.stream().map(Endpoint::path).distinct().toList();
  }

  private final HttpServer server;
  private final ExecutorService executor;

  private StatusServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  public static StatusServer start(InetSocketAddress address, Optional<Secret> token, Source source)
      throws IOException {
    return start(address, new Sessions(token), source);
  }

  /** The server of a config's {@code server:} section, on {@code address}. */
  public static StatusServer start(
      InetSocketAddress address, dev.specwatch.model.SpecwatchConfig.Server config, Source source)
      throws IOException {
    java.util.Set<String> hosts = new java.util.HashSet<>(config.allowedHosts());
    hosts.add(config.listen().host());
    config.externalUrl().map(java.net.URI::getHost).ifPresent(hosts::add);
    boolean https =
        config.externalUrl().map(u -> "https".equalsIgnoreCase(u.getScheme())).orElse(false);
    return start(
        address,
        new Sessions(config.bearerToken(), hosts, https, java.time.Clock.systemUTC()),
        source);
  }

  static StatusServer start(InetSocketAddress address, Sessions sessions, Source source)
      throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    AtomicInteger n = new AtomicInteger();
    // WORKERS at most, as many as requests need: an idle worker ends after a minute, so a daemon
    // scraped every 15 s keeps one, not all eight (make bench counted 33 threads with eight).
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            WORKERS,
            WORKERS,
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "specwatch-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    executor.allowCoreThreadTimeOut(true);
    server.setExecutor(executor);
    List<Endpoint> all = new java.util.ArrayList<>(API);
    all.addAll(UiRoutes.ENDPOINTS);
    // One context: every request is routed by the table (contexts match by prefix).
    ViewPermits views = new ViewPermits(WORKERS - 2);
    server.createContext("/", ex -> handle(ex, all, sessions, source, views));
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
    return Response.json(problems.isEmpty() ? 200 : 400, body);
  }

  private static void handle(
      HttpExchange ex, List<Endpoint> all, Sessions sessions, Source source, ViewPermits views)
      throws IOException {
    try (ex) {
      String method = ex.getRequestMethod();
      boolean head = method.equals("HEAD");
      // Routed on the raw path: a recipe name may hold an encoded "/" (%2F).
      String path = ex.getRequestURI().getRawPath();
      List<Endpoint> atPath = all.stream().filter(e -> e.matches(path)).toList();
      Optional<Endpoint> endpoint =
          atPath.stream()
              .filter(e -> e.method().equals(method) || (head && e.method().equals("GET")))
              .findFirst();
      Response response;
      if (atPath.isEmpty()) {
        response = Response.text(404, "not found\n");
      } else if (endpoint.isEmpty()) {
        String allow = String.join(", ", atPath.stream().map(Endpoint::method).toList());
        response = Response.text(405, "use " + allow + "\n").withHeader("Allow", allow);
      } else if (endpoint.get().access() == Access.PUBLIC) {
        response = call(ex, endpoint.get(), sessions, source); // probes: never wait for a permit
      } else {
        response = views.run(() -> call(ex, endpoint.get(), sessions, source));
      }
      send(ex, response, head);
    }
  }

  private static Response call(HttpExchange ex, Endpoint e, Sessions sessions, Source source) {
    Request r;
    try {
      r = Request.of(ex, e.param(ex.getRequestURI().getRawPath()));
    } catch (Request.TooLarge big) {
      return Response.text(413, big.getMessage() + "\n");
    } catch (IllegalArgumentException | IOException bad) {
      return Response.text(400, "bad request: " + bad.getMessage() + "\n");
    }
    Optional<Response> refused = Gate.refusal(e.access(), r, sessions);
    if (refused.isPresent()) {
      return refused.get();
    }
    try {
      return e.handler().handle(source, r.withSessions(sessions));
    } catch (IOException | RuntimeException failure) {
      logger.error("{} {} failed", r.method(), e.path(), failure);
      return Response.text(500, "internal error\n");
    }
  }

  private static void send(HttpExchange ex, Response response, boolean head) throws IOException {
    byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", response.type());
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    response.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
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

  @Override
  public void close() {
    server.stop(0); // JDK 17 waits the whole delay even when no exchange is open
    executor.shutdownNow();
  }
}
