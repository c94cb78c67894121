package dev.specwatch.bench;

import com.sun.net.httpserver.HttpServer;
import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Evaluator;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * `make bench`: specwatch's own cost per evaluation for 10 to 10,000 recipes. A local HTTP server
 * answers every query with a canned Prometheus response of the right size (one series per recipe,
 * k=3 positions), so the figures include HTTP, JSON parsing and mapping, but not Prometheus' query
 * time. CPU time and allocation are measured on the evaluating thread (OkHttp's synchronous calls
 * read and parse on the caller's thread; the canned server runs on other threads).
 */
public final class EvaluationBench {
  private static final int K = 3;

  public static void main(String[] args) throws IOException {
    int[] sizes =
        args.length > 0
            ? Arrays.stream(args).mapToInt(Integer::parseInt).toArray()
            : new int[] {10, 100, 1000, 10000};
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    System.out.printf(
        Locale.ROOT,
        "Java %s, %d CPUs, max heap %d MB%n",
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() / (1 << 20));
    System.out.printf(
        Locale.ROOT,
        "%8s %12s %16s %16s %16s %14s%n",
        "recipes",
        "queries/eval",
        "cpu ms/eval p50",
        "cpu ms/eval max",
        "alloc MB/eval",
        "heap MB after");
    for (boolean detection : new boolean[] {false, true}) {
      if (detection) {
        System.out.println(
            "with change detection and detection: sequential on every recipe"
                + " (30 s steps, the alert engine included):");
      }
      run(sizes, threads, detection);
    }
  }

  private static void run(int[] sizes, com.sun.management.ThreadMXBean threads, boolean detection)
      throws IOException {
    for (int n : sizes) {
      Map<String, byte[]> bodies = bodies(n);
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      ExecutorService pool =
          Executors.newFixedThreadPool(
              2,
              r -> {
                Thread t = new Thread(r, "bench-prometheus");
                t.setDaemon(true);
                return t;
              });
      server.setExecutor(pool);
      server.createContext(
          "/api/v1/query",
          exchange -> {
            String query =
                URLDecoder.decode(
                    exchange.getRequestURI().getRawQuery() == null
                        ? new String(
                            exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)
                        : exchange.getRequestURI().getRawQuery(),
                    StandardCharsets.UTF_8);
            byte[] body = bodies.get(signalOf(query));
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.start();
      try {
        List<Policy> policies = policies(n, detection);
        AlertEngine engine = new AlertEngine(SpecwatchConfig.Alerting.defaults());
        Map<String, RecipeModel> models = new java.util.HashMap<>();
        NoiseModel model =
            new NoiseModel(null, 0.6, 2, 1e-4, 4e-4, 900, Duration.ofDays(7), 2016, Instant.now());
        for (Policy p : policies) {
          models.put(p.recipe(), new RecipeModel(model, "bench", Instant.now(), STEP));
        }
        AlertState[] state = {AlertState.empty().withModels(models)};
        Duration step = detection ? STEP : null;
        PrometheusClient client =
            new PrometheusClient(
                PrometheusSettings.of(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort())));
        Evaluator evaluator = new Evaluator(client, Clock.systemUTC());
        int warmup = n >= 10000 ? 5 : 30;
        int runs = n >= 10000 ? 10 : 30;
        Evaluation last = null;
        for (int i = 0; i < warmup; i++) {
          last = evaluator.evaluate(policies, Duration.ofMinutes(5), step, Optional.empty());
          if (detection) {
            state[0] = engine.step(state[0], policies, last, List.of()).state();
          }
        }
        long tid = Thread.currentThread().getId();
        long[] cpu = new long[runs];
        long alloc = 0;
        for (int i = 0; i < runs; i++) {
          long c0 = threads.getCurrentThreadCpuTime();
          long a0 = threads.getThreadAllocatedBytes(tid);
          last = evaluator.evaluate(policies, Duration.ofMinutes(5), step, Optional.empty());
          if (detection) {
            state[0] = engine.step(state[0], policies, last, List.of()).state();
          }
          cpu[i] = threads.getCurrentThreadCpuTime() - c0;
          alloc += threads.getThreadAllocatedBytes(tid) - a0;
        }
        check(last, n);
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        Arrays.sort(cpu);
        System.out.printf(
            Locale.ROOT,
            "%8d %12d %16.2f %16.2f %16.2f %14.1f%n",
            n,
            last.queries(),
            cpu[runs / 2] / 1e6,
            cpu[runs - 1] / 1e6,
            alloc / (double) runs / (1 << 20),
            heap / (double) (1 << 20));
      } finally {
        server.stop(0);
        pool.shutdownNow();
      }
    }
  }

  private static void check(Evaluation e, int n) {
    long ok = e.recipes().stream().filter(r -> r.state().key().equals("ok")).count();
    if (e.recipes().size() != n || ok != n) {
      throw new IllegalStateException("benchmark answers did not map to recipes: " + ok + "/" + n);
    }
  }

  private static String signalOf(String query) {
    if (query.contains("increase(")) {
      return "drafts";
    }
    if (query.contains("group_left")) {
      return "positions";
    }
    if (query.contains("query=1 + ")) {
      return "mean";
    }
    if (query.contains("\n  /\n")) {
      return "acceptance";
    }
    return "rate";
  }

  private static final Duration STEP = Duration.ofSeconds(30);

  private static List<Policy> policies(int n, boolean detection) {
    List<Policy> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      dev.specwatch.model.PolicyBuilder b =
          Policy.builder("recipe-" + i, Map.of("job", "vllm", "model_name", "org/model-" + i), K)
              .acceptanceRate(Threshold.below(0.45));
      if (detection) {
        b.detection(new Policy.Detection(Policy.Detection.Mode.SEQUENTIAL, Duration.ofDays(30)))
            .change(
                new Policy.Change(0.1, Duration.ofDays(30), Duration.ofDays(7), Optional.empty()));
      }
      out.add(b.build());
    }
    return out;
  }

  private static Map<String, byte[]> bodies(int n) {
    return Map.of(
        "drafts", vector(n, false, "9000"),
        "positions", vector(n, true, "0.8"),
        "mean", vector(n, false, "3.4"),
        "acceptance", vector(n, false, "0.8"),
        "rate", vector(n, false, "120.5"));
  }

  private static byte[] vector(int n, boolean positions, String value) {
    StringBuilder b =
        new StringBuilder(
            "{\"status\":\"success\",\"data\":{\"resultType\":" + "\"vector\",\"result\":[");
    boolean first = true;
    for (int i = 0; i < n; i++) {
      for (int p = 0; p < (positions ? K : 1); p++) {
        if (!first) {
          b.append(',');
        }
        first = false;
        b.append("{\"metric\":{\"job\":\"vllm\",\"model_name\":\"org/model-").append(i).append('"');
        if (positions) {
          b.append(",\"position\":\"").append(p).append('"');
        }
        b.append("},\"value\":[1764504000.123,\"").append(value).append("\"]}");
      }
    }
    return b.append("]}}").toString().getBytes(StandardCharsets.UTF_8);
  }
}
