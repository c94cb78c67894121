package dev.specwatch.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.model.Secret;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SignalValues;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StatusServerTest {
  private final HttpClient http = HttpClient.newHttpClient();

  /** A daemon whose datasource is down. */
  static class Down implements StatusServer.Source {
    @Override
    public boolean ready() {
      return false;
    }

    @Override
    public String notReadyReason() {
      return "datasource: http://prometheus:9090/api/v1/query: connection refused";
    }

    @Override
    public String beforeFirstEvaluation() {
      return "no evaluation yet: the first has been running for 1m40s";
    }

    @Override
    public Optional<Evaluation> lastEvaluation() {
      return Optional.empty();
    }

    @Override
    public AlertState alertState() {
      return AlertState.empty();
    }

    @Override
    public RecipeHistory recipeHistory(String recipe, java.time.Duration span) {
      return RecipeHistory.NONE;
    }

    @Override
    public String metrics() {
      return "# metrics\n";
    }

    @Override
    public List<String> reload() {
      return List.of();
    }

    @Override
    public StatusViews.Status status() {
      return new StatusViews.Status(
          false,
          notReadyReason(),
          StatusViews.stateDir(new dev.specwatch.store.StateHealth(java.nio.file.Path.of("/x"))),
          null,
          0,
          0,
          config(),
          Map.of(
              "slack",
              new SpecwatchMetrics.NotifierHealth(
                  3, 1, "2026-12-03T10:00:00Z", "2026-12-03T09:00:00Z")));
    }
  }

  /** A daemon whose last evaluation is {@code evaluation}, at 2026-12-01 10:00 over 5 minutes. */
  static class Evaluated extends Down {
    private final Evaluation evaluation;

    Evaluated(List<RecipeSnapshot> recipes) {
      this.evaluation =
          new Evaluation(
              Instant.parse("2026-12-01T10:00:00Z"),
              java.time.Duration.ofMinutes(5),
              recipes,
              recipes.size());
    }

    Evaluation evaluation() {
      return evaluation;
    }

    @Override
    public Optional<Evaluation> lastEvaluation() {
      return Optional.of(evaluation);
    }
  }

  /** A vLLM recipe's snapshot with acceptance {@code acceptance} and the rest fixed. */
  static RecipeSnapshot snapshot(String name, RecipeState state, double acceptance) {
    return new RecipeSnapshot(
        name,
        "vllm",
        state,
        new SignalValues(
            acceptance, 1 + 3 * acceptance, List.of(0.9), 30.0, 18.0, 40.0, 3000.0, 10.0),
        List.of(),
        Optional.empty(),
        Optional.empty());
  }

  private HttpResponse<String> send(int port, String method, String path, String token)
      throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void readinessSaysWhyAndEveryRouteAnswersAsDocumented() throws Exception {
    try (StatusServer server =
        StatusServer.start(
            new InetSocketAddress("127.0.0.1", 0), Optional.of(Secret.of("t0ken")), new Down())) {
      int port = server.port();
      HttpResponse<String> ready = send(port, "GET", "/readyz", null);
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body())
          .isEqualTo(
              "not ready: datasource: http://prometheus:9090/api/v1/query: connection refused\n");
      assertThat(send(port, "GET", "/healthz", null).statusCode()).isEqualTo(200);
      HttpResponse<String> head = send(port, "HEAD", "/metrics", null);
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.body()).isEmpty();
      assertThat(send(port, "GET", "/api/v1/alerts", null).statusCode()).isEqualTo(401);
      assertThat(send(port, "GET", "/api/v1/alerts", "t0ken").statusCode()).isEqualTo(200);
      assertThat(send(port, "GET", "/api/v1/detectors", "t0ken").body()).contains("\"detectors\"");
      assertThat(send(port, "GET", "/api/v1/slos", "t0ken").body()).contains("\"slos\"");
      assertThat(send(port, "GET", "/api/v1/history?since=2h", "t0ken").body())
          .contains("\"transitions\"");
      assertThat(send(port, "GET", "/api/v1/history?since=30d", "t0ken").statusCode())
          .isEqualTo(400);
      assertThat(send(port, "GET", "/api/v1/status", "t0ken").body())
          .contains("\"state_dir\"", "\"writable\" : true", "connection refused")
          // The names docs/OPERATIONS.md gives (before, lastSent and lastFailure).
          .contains("\"last_sent\" : \"2026-12-03T10:00:00Z\"", "\"last_failure\" : ")
          .doesNotContain("lastSent");
      assertThat(send(port, "GET", "/api/v1/cluster", "t0ken").body())
          .contains("\"clustered\" : false", "state.backend is file");
      // Before the first evaluation: where it stands, as /readyz says it.
      HttpResponse<String> none = send(port, "GET", "/api/v1/recipes", "t0ken");
      assertThat(none.statusCode()).isEqualTo(503);
      assertThat(none.body()).contains("no evaluation yet: the first has been running for 1m40s");
      HttpResponse<String> wrongMethod = send(port, "GET", "/-/reload", "t0ken");
      assertThat(wrongMethod.statusCode()).isEqualTo(405);
      assertThat(wrongMethod.headers().firstValue("Allow")).contains("POST");
      assertThat(send(port, "GET", "/api/v1/alertsx", "t0ken").statusCode()).isEqualTo(404);
      assertThat(StatusServer.paths())
          .containsExactly(
              "/healthz",
              "/readyz",
              "/metrics",
              "/api/v1/recipes",
              "/api/v1/alerts",
              "/api/v1/slos",
              "/api/v1/status",
              "/api/v1/cluster",
              "/api/v1/detectors",
              "/api/v1/silences",
              "/api/v1/history",
              "/api/v1/silences/{}",
              "/-/reload");
    }
  }

  /**
   * The fleet page and {@code /api/v1/recipes} hand each row's sparkline the evaluation they
   * already hold: looking it up again for each row merged and sorted it once a row (5 s for the
   * fleet page at 10,000 recipes, docs/PERFORMANCE.md).
   */
  @Test
  void pagesOfEveryRecipePassTheirEvaluationToEachRowsSparkline() throws Exception {
    List<RecipeSnapshot> snapshots =
        List.of("a", "b", "c").stream().map(n -> snapshot(n, RecipeState.OK, 0.7)).toList();
    List<String> lookedUpAgain = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<String> passed = new java.util.concurrent.CopyOnWriteArrayList<>();
    Evaluated source =
        new Evaluated(snapshots) {
          @Override
          public List<Double> sparkline(String recipe) {
            lookedUpAgain.add(recipe);
            return List.of();
          }

          @Override
          public List<Double> sparkline(String recipe, Evaluation last) {
            assertThat(last).isSameAs(evaluation());
            passed.add(recipe);
            return List.of(0.7, 0.69);
          }
        };
    try (StatusServer server =
        StatusServer.start(new InetSocketAddress("127.0.0.1", 0), Optional.empty(), source)) {
      HttpResponse<String> fleet = send(server.port(), "GET", "/", null);
      assertThat(fleet.statusCode()).isEqualTo(200);
      HttpResponse<String> recipes = send(server.port(), "GET", "/api/v1/recipes", null);
      assertThat(recipes.statusCode()).isEqualTo(200);
      assertThat(
              new com.fasterxml.jackson.databind.ObjectMapper()
                  .readTree(recipes.body())
                  .at("/recipes/2/acceptance_6h")
                  .toString())
          .isEqualTo("[0.7,0.69]");
    }
    assertThat(lookedUpAgain).isEmpty();
    assertThat(passed).containsExactlyInAnyOrder("a", "b", "c", "a", "b", "c");
  }

  /**
   * A recipe in a maintenance window shows it: the fleet counts it silenced and marks its row, its
   * page says which window holds its notifications (the window here holds every day, so the test
   * does not depend on when it runs).
   */
  @Test
  void aRecipeInAMaintenanceWindowShowsIt() throws Exception {
    dev.specwatch.model.Policy policy =
        dev.specwatch.model.Policy.builder("q", Map.of("model_name", "q"), 3)
            .maintenance(
                List.of(
                    new dev.specwatch.model.Policy.Maintenance.Recurring(
                        new dev.specwatch.model.TimeInterval(
                            List.of(),
                            List.of(new dev.specwatch.model.TimeInterval.Range(0, 6)),
                            List.of(),
                            List.of(),
                            List.of(),
                            java.time.ZoneOffset.UTC),
                        "nightly suite")))
            .build();
    StatusServer.Source source =
        new Evaluated(List.of(snapshot("q", RecipeState.BREACH, 0.3))) {
          @Override
          public List<dev.specwatch.model.Policy> policies() {
            return List.of(policy);
          }
        };
    try (StatusServer server =
        StatusServer.start(new InetSocketAddress("127.0.0.1", 0), Optional.empty(), source)) {
      String fleet = send(server.port(), "GET", "/", null).body();
      assertThat(fleet).contains("1 breaching, 0 alerting, 1 silenced, 0 without data");
      assertThat(fleet).contains("<span class=\"badge silenced\">silenced</span>");
      String recipe = send(server.port(), "GET", "/recipes/q", null).body();
      assertThat(recipe)
          .contains(
              "<span class=\"badge silenced\">maintenance</span> sunday-saturday (UTC) (nightly"
                  + " suite): notifications are held while it lasts");
    }
  }

  /** A daemon whose evaluations stopped happening: liveness fails, and says why. */
  @Test
  void healthzFailsWhenEvaluationsStoppedAndSaysWhy() throws Exception {
    StatusServer.Source stuck =
        new Down() {
          @Override
          public Optional<String> stalled() {
            return Optional.of("no evaluation for the last 2m31s (evaluation.interval 30s)");
          }
        };
    try (StatusServer server =
        StatusServer.start(new InetSocketAddress("127.0.0.1", 0), Optional.empty(), stuck)) {
      HttpResponse<String> health = send(server.port(), "GET", "/healthz", null);
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(health.body())
          .isEqualTo("stuck: no evaluation for the last 2m31s (evaluation.interval 30s)\n");
    }
  }
}
