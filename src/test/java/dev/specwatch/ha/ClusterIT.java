package dev.specwatch.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.specwatch.testing.PrivatePostgres;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas of {@code specwatch run} sharing a real PostgreSQL: exactly one firing and one resolved
 * notification in all, even when the replica evaluating the regressed recipe is killed with {@code
 * kill -9} while the alert fires, or PostgreSQL stops and starts mid-run; a silence added through
 * one replica holds on all.
 */
class ClusterIT {
  @TempDir Path dir;

  @Test
  void threeReplicasKillNineTheEvaluatingOneAndNothingIsLostOrDoubled() throws Exception {
    try (ClusterRun run = new ClusterRun(dir, 3)) {
      // "quiet" regresses 25 s into the timeline: the silence comes first, held by the timeline.
      run.startHeld();
      ClusterRun.Replica first = run.replicas.get(0);
      assertThat(
              first
                  .post(
                      "/api/v1/silences",
                      "{\"recipe\": \"quiet\", \"duration\": \"2h\", \"comment\": \"known\"}")
                  .statusCode())
          .isEqualTo(201);
      for (ClusterRun.Replica r : run.replicas) {
        assertThat(r.json("/api/v1/silences").path("silences").toString())
            .as("replica %d sees the silence", r.index)
            .contains("\"recipe\":\"quiet\"");
      }
      run.release();
      assertThat(run.await(ClusterRun::firing, "ha", Duration.ofSeconds(60)))
          .as("firing posted\n%s", run.logs())
          .isTrue();

      // Every replica serves the same alerts, from the database.
      List<String> firingSeen = new ArrayList<>();
      for (ClusterRun.Replica r : run.replicas) {
        firingSeen.add(firingIds(r.json("/api/v1/alerts")).toString());
      }
      assertThat(firingSeen).allMatch(s -> s.contains("ha/acceptance_rate"));

      // Kill the replica that evaluates "ha" while its alert fires.
      String job = ClusterRun.jobOf("ha");
      String runner = lastRunBy(first.json("/api/v1/cluster"), job);
      ClusterRun.Replica victim =
          run.replicas.stream().filter(r -> r.is(runner)).findFirst().orElseThrow();
      ClusterRun.Replica survivor =
          run.replicas.stream().filter(r -> r != victim).findFirst().orElseThrow();
      Instant killed = Instant.now();
      victim.kill9();

      // Failover: the next evaluation of that job, on another replica.
      Instant takenOver = null;
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (takenOver == null && System.nanoTime() < deadline) {
        JsonNode cluster = survivor.json("/api/v1/cluster");
        for (JsonNode j : cluster.path("jobs")) {
          if (j.path("job").asText().equals(job)
              && !j.path("last_run_by").asText().equals(runner)
              && Instant.parse(j.path("started_at").asText()).isAfter(killed)) {
            takenOver = Instant.parse(j.path("started_at").asText());
          }
        }
        Thread.sleep(100);
      }
      assertThat(takenOver).as("a survivor took %s over\n%s", job, run.logs()).isNotNull();
      double failover = Duration.between(killed, takenOver).toMillis() / 1000.0;

      assertThat(run.await(ClusterRun::resolve, "ha", Duration.ofSeconds(90)))
          .as("resolve posted\n%s", run.logs())
          .isTrue();
      Thread.sleep(4000); // anything sent twice would arrive by now
      long fires = run.count(ClusterRun::firing, "ha");
      long resolves = run.count(ClusterRun::resolve, "ha");
      int lost = (fires == 0 ? 1 : 0) + (resolves == 0 ? 1 : 0);
      long duplicated = Math.max(0, fires - 1) + Math.max(0, resolves - 1);
      String row =
          String.format(
              Locale.ROOT,
              "replicas=3 shards=%d checkin=1s interval=1s failover_s=%.1f lost=%d duplicated=%d"
                  + " killed=%s",
              ClusterRun.SHARDS,
              failover,
              lost,
              duplicated,
              runner);
      System.out.println("cluster: " + row);
      Files.createDirectories(Path.of("target/ha"));
      Files.writeString(Path.of("target/ha/kill9.txt"), row + "\n");
      assertThat(fires).as("firing notifications\n%s", run.logs()).isEqualTo(1);
      assertThat(resolves).as("resolved notifications\n%s", run.logs()).isEqualTo(1);
      assertThat(run.count(ClusterRun::firing, "quiet")).as("silenced on every replica").isZero();
      // Two check-ins (1 s each) and one evaluation interval (1 s), with a second of slack for
      // the survivor's own check-in and JVM scheduling: measured, not a timing target of the test.
      System.out.println("cluster: failover " + failover + " s");

      // The database password and the Slack token appear nowhere.
      for (ClusterRun.Replica r : run.replicas) {
        if (r.alive()) {
          for (String path : List.of("/api/v1/status", "/api/v1/cluster", "/metrics", "/status")) {
            assertThat(r.get(path).body())
                .doesNotContain(ClusterRun.DB_PASSWORD)
                .doesNotContain(ClusterRun.TOKEN);
          }
        }
      }
      assertThat(run.logs())
          .doesNotContain(ClusterRun.DB_PASSWORD)
          .doesNotContain(ClusterRun.TOKEN)
          .doesNotContain("\tat ");
    }
  }

  @Test
  void postgresStoppedAndStartedMidRunLosesAndDoublesNothing() throws Exception {
    // A server of the test's own: stopping the machine's would fail the tests running beside.
    PrivatePostgres server = PrivatePostgres.start();
    try (ClusterRun run = new ClusterRun(dir, 2, server.url("postgres"), server)) {
      run.start();
      assertThat(run.await(ClusterRun::firing, "ha", Duration.ofSeconds(60)))
          .as("firing posted\n%s", run.logs())
          .isTrue();
      server.down();
      try {
        for (ClusterRun.Replica r : run.replicas) {
          awaitReady(r, false);
          assertThat(r.get("/readyz").body()).contains("unreachable");
          assertThat(r.get("/metrics").body()).contains("specwatch_state_writable 0.0");
          // A pooled connection open when the server stopped fails first with "this connection
          // has been closed"; the next attempts, new connections, are refused.
          await()
              .atMost(Duration.ofSeconds(30))
              .untilAsserted(
                  () ->
                      assertThat(r.get("/api/v1/status").body())
                          .contains("\"ready\" : false", "is unreachable: connection refused"));
        }
        Thread.sleep(3000); // retries go on meanwhile: still one line each
      } finally {
        server.up();
      }
      for (ClusterRun.Replica r : run.replicas) {
        awaitReady(r, true);
        assertThat(r.logText().lines().filter(l -> l.contains("is unreachable")).count())
            .as("replica %d logs the outage once\n%s", r.index, r.logText())
            .isEqualTo(1);
        assertThat(r.logText()).contains("is reachable again").doesNotContain("\tat ");
      }
      assertThat(run.await(ClusterRun::resolve, "ha", Duration.ofSeconds(90)))
          .as("resolve posted\n%s", run.logs())
          .isTrue();
      Thread.sleep(4000);
      assertThat(run.count(ClusterRun::firing, "ha")).as(run.logs()).isEqualTo(1);
      assertThat(run.count(ClusterRun::resolve, "ha")).as(run.logs()).isEqualTo(1);
    }
  }

  /**
   * A table lock that stalls every statement on it, plus more API reads than there are HTTP
   * workers: /healthz and /metrics still answer (from memory), /readyz says the database is
   * stalled, the reads beyond the permits get 503 "busy" at once, and everything recovers when the
   * lock goes.
   */
  @Test
  void aStalledDatabaseNeverStarvesTheProbes() throws Exception {
    try (ClusterRun run = new ClusterRun(dir, 1)) {
      run.start();
      ClusterRun.Replica r = run.replicas.get(0);
      awaitReady(r, true);
      List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> reads = new ArrayList<>();
      try (java.sql.Connection lock =
          java.sql.DriverManager.getConnection(run.url, "postgres", "")) {
        lock.setAutoCommit(false);
        try (java.sql.Statement st = lock.createStatement()) {
          st.execute(
              "LOCK TABLE sw_silence, sw_alert_state, sw_shard_evaluation, sw_outbox"
                  + " IN ACCESS EXCLUSIVE MODE");
        }
        for (int i = 0; i < 12; i++) {
          reads.add(
              run.http.sendAsync(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + r.port + "/api/v1/silences"))
                      .timeout(Duration.ofSeconds(90))
                      .build(),
                  HttpResponse.BodyHandlers.ofString()));
        }
        // Every probe answers while the reads hang, and readiness turns on the stall.
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () -> {
                  assertThat(r.get("/healthz").statusCode()).isEqualTo(200);
                  assertThat(r.get("/metrics").statusCode()).isEqualTo(200);
                  HttpResponse<String> ready = r.get("/readyz");
                  assertThat(ready.statusCode()).isEqualTo(503);
                  assertThat(ready.body()).contains("is stalled: a statement has waited");
                });
        for (int i = 0; i < 5; i++) {
          assertThat(r.get("/healthz").statusCode()).as("probe %d", i).isEqualTo(200);
        }
        lock.rollback();
      }
      awaitReady(r, true);
      List<Integer> codes = new ArrayList<>();
      for (var read : reads) {
        HttpResponse<String> response = read.get(90, TimeUnit.SECONDS);
        codes.add(response.statusCode());
        if (response.statusCode() == 503) {
          assertThat(response.body()).startsWith("busy: ");
        }
      }
      assertThat(codes).containsOnly(200, 503).contains(200, 503);
      assertThat(r.logText()).doesNotContain("\tat ");
    }
  }

  static void awaitReady(ClusterRun.Replica r, boolean ready) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (r.ready() != ready) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "replica "
                + r.index
                + " never became "
                + (ready ? "ready" : "not ready")
                + "\n"
                + r.logText());
      }
      Thread.sleep(200);
    }
  }

  static String lastRunBy(JsonNode cluster, String job) {
    for (JsonNode j : cluster.path("jobs")) {
      if (j.path("job").asText().equals(job)) {
        return j.path("last_run_by").asText();
      }
    }
    throw new AssertionError("no run of " + job + " in " + cluster);
  }

  static java.util.SortedSet<String> firingIds(JsonNode alerts) {
    TreeSet<String> ids = new TreeSet<>();
    for (JsonNode a : alerts.path("alerts")) {
      if ("firing".equals(a.path("state").asText()) || "FIRING".equals(a.path("phase").asText())) {
        ids.add(a.path("id").asText());
      }
    }
    return ids;
  }
}
