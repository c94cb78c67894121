package dev.specwatch.schedule;

import com.sun.net.httpserver.HttpServer;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.testing.CannedPrometheus;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;

/**
 * `make bench`: the daemon's start-up to its first evaluation, and heap and RSS after one hour of
 * evaluations (120 at the default 30s interval, run back to back) at 100 recipes. Prometheus is a
 * canned local HTTP server answering every query with one series per recipe.
 */
public final class DaemonBench {
  public static void main(String[] args) throws Exception {
    int recipes = 100;
    HttpServer prometheus = CannedPrometheus.start(recipes);
    Path dir = Files.createTempDirectory("specwatch-bench");
    Files.createDirectories(dir.resolve("alerts"));
    for (int i = 0; i < recipes; i++) {
      Files.writeString(
          dir.resolve("alerts/r" + i + ".yaml"),
          "recipe: r"
              + i
              + "\n"
              + "match: {job: vllm, model_name: m"
              + i
              + "}\nnum_speculative_tokens: 3\n"
              + "thresholds: {acceptance_rate: {below: 0.45}}\n");
    }
    Files.writeString(
        dir.resolve("specwatch.yaml"),
        "prometheus: {url: \"http://127.0.0.1:"
            + prometheus.getAddress().getPort()
            + "\"}\nevaluation: {interval: 30s}\n"
            + "policies: alerts\nstate: {dir: state}\nserver: {listen: \"127.0.0.1:0\"}\n"
            + "notifiers: [{type: log}]\n");

    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    long t0 = System.nanoTime();
    Daemon daemon =
        new Daemon(dir.resolve("specwatch.yaml"), new ConfigLoader(k -> null), Clock.systemUTC());
    daemon.start();
    while (!daemon.ready()) {
      Thread.sleep(5);
    }
    double startMs = (System.nanoTime() - t0) / 1e6;
    double sinceJvm = System.currentTimeMillis() - jvmStart;
    for (int i = 0; i < 120; i++) {
      daemon.evaluate();
    }
    System.gc();
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    System.out.printf(Locale.ROOT, "recipes: %d%n", recipes);
    System.out.printf(
        Locale.ROOT,
        "start() to first evaluation: %.0f ms (JVM start to first" + " evaluation: %.0f ms)%n",
        startMs,
        sinceJvm);
    System.out.printf(
        Locale.ROOT,
        "after 120 evaluations (one hour at 30s): heap used %.1f MB," + " RSS %s%n",
        heap / 1048576.0,
        rss());
    daemon.stop(Duration.ofSeconds(5));
    prometheus.stop(0);
  }

  private static String rss() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        long kb = Long.parseLong(line.replaceAll("\\D+", ""));
        return String.format(Locale.ROOT, "%.1f MB", kb / 1024.0);
      }
    }
    return "unknown";
  }
}
