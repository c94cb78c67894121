package dev.specwatch.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.specwatch.testing.CannedPrometheus;
import dev.specwatch.testing.PostgresDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * `make bench` (cluster part): three {@code specwatch run} processes (the shaded jar) sharing one
 * PostgreSQL database, 10,000 recipes in 6 evaluation shards every 10 s, against a canned
 * Prometheus answering every query with all 10,000 series (an upper bound: each shard parses the
 * whole fleet's answer). Prints each replica's CPU per evaluation cycle (user+system from
 * /proc/PID/stat over 60 s, divided by the cycles in that time) and the shards it ran, then kills
 * the replica that last ran a shard with SIGKILL five times and prints the time from the kill to
 * that shard's next evaluation on a survivor.
 */
public final class ClusterBench {
  static final int RECIPES = 10_000;
  static final int SHARDS = 6;
  static final Duration INTERVAL = Duration.ofSeconds(10);
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static final long TICKS = 100; // USER_HZ on Linux

  record Replica(int port, Path config, Process process) {}

  public static void main(String[] args) throws Exception {
    String jar = Path.of("target/specwatch.jar").toAbsolutePath().toString();
    HttpServer prometheus = CannedPrometheus.start(RECIPES);
    Path dir = Files.createTempDirectory("specwatch-cluster-bench");
    Files.createDirectories(dir.resolve("alerts"));
    for (int i = 0; i < RECIPES; i++) {
      Files.writeString(
          dir.resolve("alerts/r" + i + ".yaml"),
          "recipe: r"
              + i
              + "\nmatch: {job: vllm, model_name: m"
              + i
              + "}\nnum_speculative_tokens: 3\nthresholds: {acceptance_rate: {below: 0.45}}\n");
    }
    try (PostgresDatabase pg = PostgresDatabase.create()) {
      List<Replica> replicas = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        replicas.add(start(jar, dir, i, pg.url(), prometheus.getAddress().getPort()));
      }
      for (Replica r : replicas) {
        awaitReady(r);
      }
      Thread.sleep(INTERVAL.multipliedBy(2).toMillis()); // warm-up: JIT, first learning
      long[] cpu0 = new long[3];
      double[] evals0 = new double[3];
      for (int i = 0; i < 3; i++) {
        cpu0[i] = cpuTicks(replicas.get(i).process().pid());
        evals0[i] = evaluations(replicas.get(i));
      }
      Duration window = Duration.ofSeconds(60);
      Thread.sleep(window.toMillis());
      System.out.printf(
          Locale.ROOT,
          "cluster: 3 replicas, %d recipes, %d shards, evaluation every %ds, over %ds:%n",
          RECIPES,
          SHARDS,
          INTERVAL.toSeconds(),
          window.toSeconds());
      double cycles = (double) window.toMillis() / INTERVAL.toMillis();
      for (int i = 0; i < 3; i++) {
        double cpu = (cpuTicks(replicas.get(i).process().pid()) - cpu0[i]) / (double) TICKS;
        double shardRuns = evaluations(replicas.get(i)) - evals0[i];
        System.out.printf(
            Locale.ROOT,
            "  replica %d: %.2f s CPU per %ds cycle (%.1f%% of one core), %.1f shard evaluations"
                + " per cycle, %.0f ms CPU per shard evaluation%n",
            i,
            cpu / cycles,
            INTERVAL.toSeconds(),
            100 * cpu / window.toSeconds(),
            shardRuns / cycles,
            shardRuns == 0 ? 0 : 1000 * cpu / shardRuns);
      }

      List<Double> failovers = new ArrayList<>();
      for (int k = 0; k < 5; k++) {
        String job = k % 2 == 0 ? "evaluation" : "evaluation-" + k;
        JsonNode cluster = json(alive(replicas));
        String runner = null;
        for (JsonNode j : cluster.path("jobs")) {
          if (j.path("job").asText().equals(job)) {
            runner = j.path("last_run_by").asText();
          }
        }
        final String victimName = runner;
        int v = -1;
        for (int i = 0; i < replicas.size(); i++) {
          if (victimName != null && victimName.endsWith("-" + replicas.get(i).process().pid())) {
            v = i;
          }
        }
        if (v < 0) {
          continue;
        }
        Instant killed = Instant.now();
        replicas.get(v).process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        Replica survivor = replicas.get((v + 1) % replicas.size());
        Instant next = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (next == null && System.nanoTime() < deadline) {
          for (JsonNode j : json(survivor).path("jobs")) {
            if (j.path("job").asText().equals(job)
                && !j.path("last_run_by").asText().equals(victimName)
                && Instant.parse(j.path("started_at").asText()).isAfter(killed)) {
              next = Instant.parse(j.path("started_at").asText());
            }
          }
          Thread.sleep(50);
        }
        double s = next == null ? Double.NaN : Duration.between(killed, next).toMillis() / 1000.0;
        failovers.add(s);
        System.out.printf(
            Locale.ROOT,
            "  kill -9 of the replica that ran %s: next run on a survivor after %.1f s%n",
            job,
            s);
        replicas.set(v, start(jar, dir, v, pg.url(), prometheus.getAddress().getPort()));
        awaitReady(replicas.get(v));
        Thread.sleep(3000);
      }
      List<Double> sorted = new ArrayList<>(failovers);
      Collections.sort(sorted);
      System.out.printf(
          Locale.ROOT,
          "  failover (kill -9 → that shard's next evaluation on a survivor), %d kills: min %.1f s,"
              + " median %.1f s, max %.1f s (bound: two 2 s check-ins + one %d s interval = %d s)%n",
          sorted.size(),
          sorted.get(0),
          sorted.get(sorted.size() / 2),
          sorted.get(sorted.size() - 1),
          INTERVAL.toSeconds(),
          4 + INTERVAL.toSeconds());
      for (Replica r : replicas) {
        r.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      prometheus.stop(0);
    }
  }

  static Replica alive(List<Replica> replicas) {
    return replicas.stream().filter(r -> r.process().isAlive()).findFirst().orElseThrow();
  }

  static Replica start(String jar, Path dir, int i, String url, int promPort) throws IOException {
    int port;
    try (var s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path config = dir.resolve("specwatch-" + i + ".yaml");
    Files.writeString(
        config,
        "prometheus: {url: \"http://127.0.0.1:"
            + promPort
            + "\"}\nevaluation: {interval: "
            + INTERVAL.toSeconds()
            + "s}\npolicies: alerts\n"
            + "state: {backend: postgres, url: \""
            + url
            + "\", user: postgres, shards: "
            + SHARDS
            + "}\nserver: {listen: \"127.0.0.1:"
            + port
            + "\"}\nnotifiers: [{type: log}]\n");
    Process p =
        new ProcessBuilder("java", "-Xmx512m", "-jar", jar, "run", "--config", config.toString())
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(dir.resolve("replica-" + i + ".log").toFile()))
            .start();
    return new Replica(port, config, p);
  }

  static void awaitReady(Replica r) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      try {
        if (get(r, "/readyz").statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("replica on port " + r.port() + " did not become ready");
  }

  static HttpResponse<String> get(Replica r, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + r.port() + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode json(Replica r) throws Exception {
    return JSON.readTree(get(r, "/api/v1/cluster").body());
  }

  static double evaluations(Replica r) throws Exception {
    double n = 0;
    for (String line : get(r, "/metrics").body().split("\n")) {
      if (line.startsWith("specwatch_evaluations_total{")) {
        n += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return n;
  }

  static long cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
  }
}
