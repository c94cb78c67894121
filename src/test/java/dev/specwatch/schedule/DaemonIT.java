package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.Fleet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: a real Prometheus scraping the simulator, `specwatch run` as a separate process (the
 * shaded jar), and a local server speaking the Slack Web API. A regression posts exactly one
 * message; `kill -9` while firing and a restart post nothing new; the recovery updates that same
 * message and replies in its thread. Also: status endpoints, reload with a broken config, SIGTERM.
 */
class DaemonIT {
  static final String SLACK_TOKEN = "xoxb-daemon-it-planted-5150";
  static final String API_TOKEN = "status-api-planted-token-8080";

  @TempDir Path dir;
  final List<Process> processes = new ArrayList<>();
  final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void killAll() {
    processes.forEach(Process::destroyForcibly);
  }

  /** The port the daemon last started bound (it is told port 0). */
  int port;

  /** The daemon last started. */
  DaemonProcess current;

  private Process run(Path config, Path log) throws IOException {
    current = DaemonProcess.start(config, log, "--shutdown-timeout", "10s");
    processes.add(current.process());
    port = current.port();
    return current.process();
  }

  private HttpResponse<String> get(int port, String path, boolean auth) throws Exception {
    assertThat(port).isEqualTo(current.port());
    return current.get(path, auth ? API_TOKEN : null);
  }

  @Test
  void regressionPostsOnceSurvivesKill9AndRecoveryUpdatesTheSameMessage() throws Exception {
    try (Fleet fleet = Fleet.start("/dev/specwatch/testing/daemon-it.yaml");
        FakeSlackApi slack = new FakeSlackApi()) {
      DaemonProcess.policy(
          dir.resolve("alerts"), "daemon", "it/daemon", "for: 4s\nkeep_firing_for: 4s\n");
      Path config = dir.resolve("specwatch.yaml");
      String text =
          DaemonProcess.Config.of(fleet.prometheus().baseUri())
              .bearerToken(API_TOKEN)
              .slack(SLACK_TOKEN, slack.apiUrl(), "grouping: {group_wait: 2s}")
              .log()
              .text();
      Files.writeString(config, text, StandardCharsets.UTF_8);
      Path log = dir.resolve("specwatch.log");

      Process first = run(config, log);
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(get(port, "/readyz", false).statusCode()).isEqualTo(200));
      assertThat(get(port, "/healthz", false).body()).isEqualTo("ok\n");
      assertThat(get(port, "/api/v1/recipes", false).statusCode())
          .as("token required")
          .isEqualTo(401);
      HttpResponse<String> recipes = get(port, "/api/v1/recipes", true);
      assertThat(recipes.statusCode()).isEqualTo(200);
      assertThat(recipes.body()).contains("\"name\" : \"daemon\"");
      assertThat(get(port, "/metrics", false).body())
          .contains("specwatch_evaluations_total{result=\"ok\"}")
          .contains("specwatch_last_successful_evaluation_timestamp_seconds");

      // Regression (from 20s): exactly one top-level message.
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(slack.calls())
                      .extracting(FakeSlackApi.Call::method)
                      .containsExactly("chat.postMessage"));
      String ts = "1764504000.1000";
      assertThat(slack.calls().get(0).params()).doesNotContainKey("thread_ts");
      assertThat(get(port, "/api/v1/alerts", true).body()).contains("\"state\" : \"firing\"");

      // A broken config is rejected and the old one keeps running.
      Files.writeString(config, text + "evaluation: [broken\n", StandardCharsets.UTF_8);
      HttpResponse<String> reload = post(port, "/-/reload");
      assertThat(reload.statusCode()).isEqualTo(400);
      assertThat(reload.body()).contains("not valid YAML");
      Files.writeString(config, text, StandardCharsets.UTF_8);
      assertThat(get(port, "/healthz", false).statusCode()).isEqualTo(200);

      // kill -9 while firing, then restart: nothing new is posted.
      first.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      Process second = run(config, log);
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(get(port, "/readyz", false).statusCode()).isEqualTo(200));
      // Nothing new is posted. The restarted daemon may first look the message up
      // (conversations.list, conversations.history: SlackAdoption) when the kill fell between
      // Slack's answer and its record; reads are not posts.
      assertThat(writes(slack)).hasSize(1);

      // Recovery (from 60s): the same message is updated and the thread gets a reply.
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(writes(slack))
                      .extracting(FakeSlackApi.Call::method)
                      .containsExactly("chat.postMessage", "chat.update", "chat.postMessage"));
      assertThat(writes(slack).get(1).params()).containsEntry("ts", ts);
      assertThat(writes(slack).get(2).params()).containsEntry("thread_ts", ts);

      // SIGTERM: a clean stop with exit 0, state saved.
      second.destroy();
      assertThat(second.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(second.exitValue()).isZero();
      assertThat(Files.readString(dir.resolve("state/alerts.json"))).contains("\"alerts\":{}");

      String output = Files.readString(log);
      assertThat(output)
          .contains("specwatch running")
          .contains("reload rejected")
          .contains("specwatch stopped");
      assertThat(output + recipes.body()).doesNotContain(SLACK_TOKEN).doesNotContain(API_TOKEN);
    }
  }

  /** The calls that post or change a message: what a person in the channel sees. */
  private static List<FakeSlackApi.Call> writes(FakeSlackApi slack) {
    return slack.calls().stream().filter(c -> c.method().startsWith("chat.")).toList();
  }

  private static void policy(Path alerts, String recipe, String model, String extra)
      throws IOException {
    DaemonProcess.policy(alerts, recipe, model, extra);
  }

  private HttpResponse<String> post(int port, String path) throws Exception {
    assertThat(port).isEqualTo(current.port());
    return current.post(path, null, API_TOKEN, Duration.ofSeconds(30));
  }

  private static double evaluations(String metrics) {
    Matcher m =
        Pattern.compile("(?m)^specwatch_evaluations_total\\{result=\"ok\"} (\\S+)$")
            .matcher(metrics);
    assertThat(m.find()).as(metrics).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  @ExtendWith(Fleet.Extension.class)
  void reloadsOnPostAndSighupAndServesEveryDocumentedEndpoint(Fleet fleet) throws Exception {
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    policy(alerts, "steady", "it/steady-mtp", "slo: {objective: 0.99, acceptance_rate: 0.5}\n");
    // A typo in model_name: the recipe can never alert, and the daemon says why, once.
    policy(alerts, "typo", "it/steady-mpt", "");
    Path config =
        DaemonProcess.Config.of(fleet.prometheus().baseUri())
            .evaluation("1s", "15s")
            .bearerToken(API_TOKEN)
            .log()
            .write(dir.resolve("specwatch.yaml"));
    Path log = dir.resolve("specwatch.log");
    Process daemon = run(config, log);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(get(port, "/readyz", false).statusCode()).isEqualTo(200));

    String hint =
        "model_name=\\\"it/steady-mpt\\\" selects no series of vllm:generation_tokens_total"
            + " (did you mean model_name=\\\"it/steady-mtp\\\"?)";
    // Said once the recipe has read no data for a whole window (15s).
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(get(port, "/api/v1/recipes", true).body())
                    .contains("\"no_data_hint\" : \"" + hint + "\""));
    HttpResponse<String> slos = get(port, "/api/v1/slos", true);
    assertThat(slos.statusCode()).isEqualTo(200);
    JsonNode slo = new ObjectMapper().readTree(slos.body()).get("slos").get(0);
    assertThat(slo.get("recipe").asText()).isEqualTo("steady");
    assertThat(slo.has("objective")).as(slos.body()).isTrue();
    HttpResponse<String> head =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(get(port, "/api/v1/nope", true).statusCode()).isEqualTo(404);
    assertThat(get(port, "/healthzz", false).statusCode()).isEqualTo(404);
    assertThat(get(port, "/metrics", false).body())
        .contains("# TYPE specwatch_notifications_sent_total counter")
        .contains("specwatch_notifications_sent_total{notifier=\"log\"} 0.0")
        .contains("# TYPE specwatch_evaluations_total counter");
    double before = evaluations(get(port, "/metrics", false).body());

    // Clients that send half a request and stall hold no worker for long: /healthz answers
    // while more of them than there are workers stay connected.
    List<java.net.Socket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < 12; i++) {
        java.net.Socket socket = new java.net.Socket("127.0.0.1", port);
        socket
            .getOutputStream()
            .write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        stalled.add(socket);
      }
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(40))
          .untilAsserted(
              () -> assertThat(get(port, "/healthz", false).statusCode()).isEqualTo(200));
    } finally {
      for (java.net.Socket socket : stalled) {
        socket.close();
      }
    }

    // A successful POST /-/reload picks up a new policy.
    policy(alerts, "regressed", "it/regressed", "");
    HttpResponse<String> reload = post(port, "/-/reload");
    assertThat(reload.statusCode()).isEqualTo(200);
    assertThat(reload.body()).contains("\"status\" : \"ok\"");
    awaitListed("regressed", log, daemon);

    // SIGHUP does the same.
    policy(alerts, "idle", "it/goes-idle", "");
    Process hup = new ProcessBuilder("kill", "-HUP", Long.toString(daemon.pid())).start();
    assertThat(hup.waitFor(10, TimeUnit.SECONDS)).isTrue();
    awaitListed("idle", log, daemon);
    assertThat(evaluations(get(port, "/metrics", false).body()))
        .as("counters keep counting across reloads")
        .isGreaterThan(before);
    assertThat(Files.readString(log)).contains("config reloaded: 3 recipe(s)");
    assertThat(Files.readString(log)).contains("config reloaded: 4 recipe(s)");
    String said =
        "recipe typo reads no data, so it cannot alert: model_name=\"it/steady-mpt\" selects no"
            + " series of vllm:generation_tokens_total (did you mean model_name=\"it/steady-mtp\"?)";
    assertThat(Files.readString(log).split(java.util.regex.Pattern.quote(said), -1))
        .as("said once in %s evaluations", evaluations(get(port, "/metrics", false).body()))
        .hasSize(2);

    daemon.destroy();
    assertThat(daemon.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(daemon.exitValue()).isZero();
  }

  /**
   * Waits up to 20 s for {@code /api/v1/recipes} to list {@code recipe}; on time-out the failure
   * carries the daemon's log and its threads (a reload or an evaluation stuck shows there).
   */
  private void awaitListed(String recipe, Path log, Process daemon) throws Exception {
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(get(port, "/api/v1/recipes", true).body())
                      .contains("\"name\" : \"" + recipe + "\""));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          e.getMessage()
              + "\nthe daemon's log:\n"
              + Files.readString(log)
              + "\nits threads:\n"
              + DaemonProcess.threads(daemon.pid()),
          e);
    }
  }

  /**
   * A datasource that accepts connections and never answers (a Prometheus stuck in a long query):
   * SIGTERM with the default shutdown timeout cancels the running evaluation's queries and exits 0
   * without saving or notifying anything of it, well inside a container runtime's 10 s grace.
   * Before, the daemon waited 30 s for the evaluation, so the runtime's SIGKILL came first.
   */
  @Test
  void sigtermWhileTheDatasourceStallsCancelsTheEvaluationAndExitsZero() throws Exception {
    try (java.net.ServerSocket stall =
        new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
      List<java.net.Socket> held = java.util.Collections.synchronizedList(new ArrayList<>());
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    held.add(stall.accept());
                    asked.countDown();
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              },
              "stalled-datasource");
      acceptor.setDaemon(true);
      acceptor.start();
      policy(dir.resolve("alerts"), "stalled", "it/stalled", "");
      Path config =
          DaemonProcess.Config.of(URI.create("http://127.0.0.1:" + stall.getLocalPort()))
              .evaluation("30s", "5m")
              .log()
              .write(dir.resolve("specwatch.yaml"));
      Path log = dir.resolve("specwatch.log");
      current = DaemonProcess.start(config, log);
      processes.add(current.process());
      assertThat(asked.await(60, TimeUnit.SECONDS))
          .as("the evaluation asked the datasource")
          .isTrue();

      Process daemon = current.process();
      daemon.destroy();
      assertThat(daemon.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(daemon.exitValue()).isZero();
      String text = Files.readString(log);
      assertThat(text)
          .contains("cancelling its datasource queries")
          .contains("evaluation abandoned: specwatch is stopping")
          .doesNotContain("still running after")
          .contains("specwatch stopped");
      assertThat(Files.exists(dir.resolve("state").resolve("alerts.json")))
          .as("nothing of the abandoned evaluation was saved")
          .isFalse();
      synchronized (held) {
        for (java.net.Socket socket : held) {
          socket.close();
        }
      }
    }
  }
}
