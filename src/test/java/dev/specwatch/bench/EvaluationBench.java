package dev.specwatch.bench;

import com.sun.net.httpserver.HttpServer;
import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.FileStateStore;
import dev.specwatch.alerting.Learner;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.detect.NoiseModel;
import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.testing.LargeState;
import dev.specwatch.testing.MutableClock;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;

/**
 * `make bench`: specwatch's own cost per evaluation for 10 to 10,000 recipes. A local HTTP server,
 * in the launching JVM, answers every query with a canned Prometheus response of the right size
 * (one series per recipe, k=3 positions), so the figures include HTTP, JSON parsing and mapping,
 * but not Prometheus' query time. CPU time and allocation are measured on the evaluating thread
 * (OkHttp's synchronous calls read and parse on the caller's thread), in a JVM started with the
 * systemd unit's flags ({@code -Dflags="…"} for others), with the collections' pauses during the
 * measured evaluations beside ({@code -Dbench.rules=threshold} or {@code change} runs one half).
 * The evaluations are 30 s apart on the clock, and after each the state is saved as the file store
 * saves it (its CPU and size beside).
 */
public final class EvaluationBench {
  private static final int K = 3;

  public static void main(String[] args) throws IOException, InterruptedException {
    int[] sizes =
        args.length > 0
            ? Arrays.stream(args).mapToInt(Integer::parseInt).toArray()
            : new int[] {10, 100, 1000, 10000};
    if (System.getProperty("bench.forked") == null) {
      // The canned Prometheus runs here, in the launching JVM: its answers (about 25 MB at 10,000
      // recipes) are not in the measured JVM's heap, where they would be collected with it.
      HttpServer server = cannedPrometheus(sizes);
      // What ships is what is measured: the systemd unit's JVM flags (C1 only, the serial
      // collector, a 128 MB heap), as FootprintBench runs the daemon; -Dflags="…" to compare.
      List<String> flags = FootprintBench.unitFlags();
      List<String> command = new ArrayList<>(List.of("java"));
      command.addAll(flags);
      command.addAll(
          List.of(
              "-Dbench.forked=true",
              "-Dbench.prometheus=http://127.0.0.1:" + server.getAddress().getPort(),
              "-Dbench.rules=" + System.getProperty("bench.rules", "both"),
              "-cp",
              System.getProperty("java.class.path"),
              EvaluationBench.class.getName()));
      command.addAll(Arrays.asList(args));
      System.out.println(
          "JVM flags ("
              + (System.getProperty("flags") == null
                  ? "deploy/systemd/specwatch.service"
                  : "-Dflags")
              + "): "
              + String.join(" ", flags));
      int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
      server.stop(0);
      System.exit(exit);
    }
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
        "%8s %12s %16s %16s %12s %16s %14s %14s %12s%n",
        "recipes",
        "queries/eval",
        "cpu ms/eval p50",
        "cpu ms/eval max",
        "gc ms/eval",
        "alloc MB/eval",
        "heap MB after",
        "save cpu ms p50",
        "state MB");
    String rules = System.getProperty("bench.rules", "both");
    for (boolean detection : new boolean[] {false, true}) {
      if (!rules.equals("both") && rules.equals("change") != detection) {
        continue;
      }
      if (detection) {
        System.out.println(
            "with change detection and detection: sequential on every recipe"
                + " (30 s steps, the learner's check and the alert engine included):");
      }
      run(sizes, threads, detection);
    }
  }

  private static void run(int[] sizes, com.sun.management.ThreadMXBean threads, boolean detection)
      throws IOException {
    for (int n : sizes) {
      List<Policy> policies = policies(n, detection);
      AlertEngine engine = new AlertEngine(SpecwatchConfig.Alerting.defaults());
      Map<String, RecipeModel> models = new java.util.HashMap<>();
      NoiseModel model = LargeState.model(START);
      for (Policy p : policies) {
        models.put(p.recipe(), new RecipeModel(model, "bench", START, STEP));
      }
      AlertState[] state = {AlertState.empty().withModels(models)};
      Duration step = detection ? STEP : null;
      PrometheusClient client =
          new PrometheusClient(
              PrometheusSettings.of(URI.create(System.getProperty("bench.prometheus") + "/n" + n)));
      // Evaluations 30 s apart on the clock, as the daemon's are: the change rule's state (steps
      // waiting 10 minutes to enter its local reference) grows as it does in service.
      MutableClock clock = new MutableClock(START);
      Evaluator evaluator = new Evaluator(client, clock);
      // as AlertService does before each evaluation: which models are due (none here: they were
      // learned at the start, and the bench's half hour is inside Learner.RELEARN)
      Learner learner = new Learner(client);
      java.nio.file.Path stateDir = java.nio.file.Files.createTempDirectory("specwatch-bench");
      FileStateStore store = new FileStateStore(stateDir, clock);
      int warmup = n >= 10000 ? 25 : 30;
      int runs = n >= 10000 ? 10 : 30;
      Evaluation last = null;
      for (int i = 0; i < warmup; i++) {
        clock.advance(STEP);
        last = evaluator.evaluate(policies, Duration.ofMinutes(5), step, Optional.empty());
        if (detection) {
          state[0] = engine.step(state[0], policies, last, List.of()).state();
        }
      }
      long tid = Thread.currentThread().getId();
      long[] cpu = new long[runs];
      long[] save = new long[runs];
      long alloc = 0;
      long gc0 = gcMillis();
      for (int i = 0; i < runs; i++) {
        clock.advance(STEP);
        long c0 = threads.getCurrentThreadCpuTime();
        long a0 = threads.getThreadAllocatedBytes(tid);
        if (detection) {
          Map<String, RecipeModel> learned =
              learner.learn(policies, state[0], STEP, clock.instant());
          if (!learned.isEmpty()) {
            throw new IllegalStateException("the bench's models fell due: " + learned.keySet());
          }
        }
        last = evaluator.evaluate(policies, Duration.ofMinutes(5), step, Optional.empty());
        if (detection) {
          state[0] = engine.step(state[0], policies, last, List.of()).state();
        }
        cpu[i] = threads.getCurrentThreadCpuTime() - c0;
        alloc += threads.getThreadAllocatedBytes(tid) - a0;
        // what the daemon does next with the state: save it (state.backend: file)
        long s0 = threads.getCurrentThreadCpuTime();
        store.save(state[0]);
        save[i] = threads.getCurrentThreadCpuTime() - s0;
      }
      long stateBytes = java.nio.file.Files.size(store.file());
      java.nio.file.Files.delete(store.file());
      java.nio.file.Files.delete(stateDir);
      long gc = gcMillis() - gc0;
      check(last, n);
      System.gc();
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      Arrays.sort(cpu);
      Arrays.sort(save);
      System.out.printf(
          Locale.ROOT,
          "%8d %12d %16.2f %16.2f %12.1f %16.2f %14.1f %14.1f %12.1f%n",
          n,
          last.queries(),
          cpu[runs / 2] / 1e6,
          cpu[runs - 1] / 1e6,
          gc / (double) runs,
          alloc / (double) runs / (1 << 20),
          heap / (double) (1 << 20),
          save[runs / 2] / 1e6,
          stateBytes / (double) (1 << 20));
    }
  }

  /** Answers {@code /n<recipes>/api/v1/query} for each size as {@link #signalOf} routes it. */
  private static HttpServer cannedPrometheus(int[] sizes) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "bench-prometheus");
              t.setDaemon(true);
              return t;
            }));
    for (int n : sizes) {
      Map<String, byte[]> bodies = bodies(n);
      server.createContext(
          "/n" + n + "/api/v1/query",
          exchange -> {
            String query =
                URLDecoder.decode(
                    exchange.getRequestURI().getRawQuery() == null
                        ? new String(
                            exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)
                        : exchange.getRequestURI().getRawQuery(),
                    StandardCharsets.UTF_8);
            byte[] body = bodies.get(signalOf(query));
            if (body == null) {
              throw new IllegalStateException("no canned answer for " + signalOf(query));
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
    }
    server.start();
    return server;
  }

  /** The collectors' pauses so far (the serial collector's run on the VM thread, not this one). */
  private static long gcMillis() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionTime)
        .sum();
  }

  private static void check(Evaluation e, int n) {
    long ok = e.recipes().stream().filter(r -> r.state().key().equals("ok")).count();
    if (e.recipes().size() != n || ok != n) {
      throw new IllegalStateException("benchmark answers did not map to recipes: " + ok + "/" + n);
    }
    // the healthy path: no recipe carries a note (a k or draft-length disagreement), and the
    // figures read back what the answers say
    for (var r : e.recipes()) {
      boolean noted = r.form().map(f -> !f.notes().isEmpty()).orElse(false);
      if (noted
          || !near(0.8, r.signals().acceptanceRate())
          || !near(3.4, r.signals().meanAcceptedLength())
          || r.increments().map(i -> i.acceptedPerPosition().contains(null)).orElse(false)) {
        throw new IllegalStateException("benchmark answers are not a healthy recipe's: " + r);
      }
    }
  }

  private static boolean near(double expected, Double actual) {
    return actual != null && Math.abs(actual - expected) < 1e-9;
  }

  private static final java.util.regex.Pattern FIRST_METRIC =
      java.util.regex.Pattern.compile("vllm:(\\w+)");

  /**
   * Which canned answer a query gets: each query the evaluator sends is answered as a healthy vLLM
   * deployment at k = 3 would answer it (50 drafts a second, acceptance 0.8, 0.9/0.8/0.7 by
   * position), so the figures measure the path every healthy recipe takes. Before 2026-12-06 the
   * answers were keyed on older query shapes, and every recipe read k = 121 with drafts averaging 4
   * tokens: two formatted notes a recipe, about a fifth of the CPU at 10,000 recipes.
   */
  private static String signalOf(String query) {
    if (query.contains("\"k_bound\"")) {
      return "k";
    }
    if (query.startsWith("query=time() - ")) {
      return "covered";
    }
    if (query.startsWith("query=group by")) {
      return "present";
    }
    if (query.contains("group_left")) {
      return "positions";
    }
    if (query.contains("(1 + ")) {
      return "mean";
    }
    if (query.contains("\n  /\n")) {
      return "acceptance";
    }
    java.util.regex.Matcher first = FIRST_METRIC.matcher(query);
    String metric = first.find() ? first.group(1) : "";
    metric =
        switch (metric) {
          case "spec_decode_num_accepted_tokens_per_pos_total" -> "per-position";
          case "spec_decode_num_draft_tokens_total" -> "draft-tokens";
          case "spec_decode_num_accepted_tokens_total" -> "accepted";
          case "spec_decode_num_drafts_total" -> "drafts";
          default -> "generated";
        };
    if (query.contains("increase(")) {
      return metric + (query.contains("[30s]") ? " a step" : " in the window");
    }
    return metric + " a second";
  }

  private static final Duration STEP = Duration.ofSeconds(30);
  private static final Instant START = Instant.parse("2026-12-01T00:00:00Z");

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
    Map<String, byte[]> out = new java.util.HashMap<>();
    // Values as Prometheus writes them (Go's shortest round-trip form): rates and ratios of
    // counters rarely come out short, and parsing 17 digits costs more than parsing "0.8".
    out.put("k", vector(n, "3"));
    out.put("covered", vector(n, "299.874"));
    out.put("present", vector(n, "1"));
    out.put(
        "positions", vector(n, "0.9000344804597549", "0.7999770130268301", "0.6999885065134151"));
    out.put("mean", vector(n, "3.4000000000000004"));
    out.put("acceptance", vector(n, "0.7999999999999999"));
    out.put("draft-tokens a second", vector(n, "150.05172413793105"));
    out.put("accepted a second", vector(n, "120.04137931034484"));
    out.put("generated a second", vector(n, "170.0586206896552"));
    out.put("drafts in the window", vector(n, "15005.172413793103"));
    out.put("draft-tokens a step", vector(n, "4501.551724137931"));
    out.put("accepted a step", vector(n, "3601.241379310345"));
    out.put("drafts a step", vector(n, "1500.5172413793102"));
    out.put(
        "per-position a step",
        vector(n, "1350.4655172413793", "1200.4137931034484", "1050.3620689655172"));
    return out;
  }

  private static byte[] vector(int n, String... byPosition) {
    boolean positions = byPosition.length > 1;
    StringBuilder b =
        new StringBuilder(
            "{\"status\":\"success\",\"data\":{\"resultType\":" + "\"vector\",\"result\":[");
    boolean first = true;
    for (int i = 0; i < n; i++) {
      for (int p = 0; p < byPosition.length; p++) {
        if (!first) {
          b.append(',');
        }
        first = false;
        b.append("{\"metric\":{\"job\":\"vllm\",\"model_name\":\"org/model-").append(i).append('"');
        if (positions) {
          b.append(",\"position\":\"").append(p).append('"');
        }
        b.append("},\"value\":[1764504000.123,\"").append(byPosition[p]).append("\"]}");
      }
    }
    return b.append("]}}").toString().getBytes(StandardCharsets.UTF_8);
  }
}
