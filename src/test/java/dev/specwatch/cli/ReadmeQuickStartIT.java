package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.Fleet;
import dev.specwatch.testing.HeldClock;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start, its lines run as they are written (all but {@code make jar}: the build
 * did it) by bash, with HOME a directory of the test's and PROMETHEUS_URL a real Prometheus
 * scraping the simulator as "your vLLM": discover writes a policy that alerts from its first hour,
 * check reads the model and exits 1 once it regresses, and the daemon starts and holds the alert.
 * The README cannot drift from what works.
 */
class ReadmeQuickStartIT {
  static final String BEGIN = "<!-- quickstart:";
  static final String END = "<!-- quickstart: end -->";

  @TempDir Path home;

  /** The command lines of the README's quick start block, in order. */
  static List<String> quickStart() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    int begin = readme.indexOf(BEGIN);
    int end = readme.indexOf(END);
    assertThat(begin).as("README.md has the quick start block").isNotNegative();
    String block = readme.substring(readme.indexOf("```sh\n", begin) + 6, end);
    block = block.substring(0, block.lastIndexOf("```"));
    return block.lines().filter(l -> !l.isBlank()).toList();
  }

  @Test
  void theQuickStartReachesAnAlertingPolicyInAtMostSixCommands() throws Exception {
    List<String> lines = quickStart();
    assertThat(lines).hasSizeLessThanOrEqualTo(6);
    assertThat(lines.get(0)).isEqualTo("make jar");
    assertThat(lines.get(lines.size() - 2)).startsWith("specwatch check ");
    assertThat(lines.get(lines.size() - 1)).startsWith("specwatch run ");
    List<String> setup = lines.subList(1, lines.size() - 2); // PATH, the config, discover

    HeldClock clock = new HeldClock();
    try (Fleet fleet = Fleet.startHeld("/dev/specwatch/testing/quickstart.yaml", clock)) {
      clock.release();
      Map<String, String> env =
          Map.of(
              "HOME", home.toString(), "PROMETHEUS_URL", fleet.prometheus().baseUri().toString());
      // Prometheus has scraped the healthy model twice (the scenario's first 45 s): one sample is
      // no rate, and discover would read the model as without traffic.
      await()
          .atMost(Duration.ofSeconds(40))
          .until(
              () ->
                  !fleet.api().query("rate(vllm:spec_decode_num_drafts_total[5m]) > 0").isEmpty());

      Run discover = bash(setup, env);
      assertThat(discover.exit()).as(discover.output()).isZero();
      assertThat(discover.output())
          .contains("your-org/your-model-mtp")
          .contains("a starter threshold (acceptance below");
      Path policy = home.resolve("specwatch/alerts/your-org-your-model-mtp.yaml");
      assertThat(policy).exists();
      assertThat(Files.readString(policy)).contains("acceptance_rate: {below: 0.");

      // check, as written, until the regression (acceptance 0.8 -> 0.3) is in its window.
      List<String> check = new ArrayList<>(setup.subList(0, setup.size() - 1));
      check.add(lines.get(lines.size() - 2));
      await()
          .atMost(Duration.ofSeconds(150))
          .pollInterval(Duration.ofSeconds(3))
          .untilAsserted(
              () -> {
                Run r = bash(check, env);
                assertThat(r.exit()).as(r.output()).isEqualTo(1);
                assertThat(r.output()).containsPattern("your-org-your-model-mtp +vllm +breach");
              });

      // run, as written: the daemon reads the same policy and holds the alert (pending for the
      // policy's `for`, then firing).
      List<String> run = new ArrayList<>(setup.subList(0, setup.size() - 1));
      run.add(lines.get(lines.size() - 1));
      Path daemonLog = home.resolve("daemon.log");
      // At debug the daemon logs each evaluation and each learn, so a timeout's log says how far
      // it got.
      Map<String, String> daemonEnv = new java.util.HashMap<>(env);
      daemonEnv.put("SPECWATCH_LOG_LEVEL", "debug");
      Process daemon = start(run, daemonEnv, daemonLog);
      try {
        HttpClient http = HttpClient.newHttpClient();
        // On a timeout the daemon's own output and its last answers say why (a port taken, a slow
        // first evaluation, a recipe it read as without data).
        AtomicReference<String> lastAlerts = new AtomicReference<>("(none)");
        try {
          // The first evaluation is at start and alone takes under a second, but a loaded machine
          // (CI runs four test JVMs on two CPUs, beside PostgreSQL and four Prometheus servers)
          // can be slow to start the JVM and to answer: twice in CI no evaluation had finished
          // after 2 minutes, for a reason not yet seen. A bound, not a speed (speed is in `make
          // bench`); a timeout prints the daemon's debug log and its threads.
          await()
              .atMost(Duration.ofMinutes(4))
              .untilAsserted(
                  () -> {
                    lastAlerts.set(get(http, "/api/v1/alerts"));
                    assertThat(lastAlerts.get())
                        .contains("your-org-your-model-mtp")
                        .contains("acceptance_rate");
                  });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          throw new AssertionError(
              "daemon output:\n"
                  + readQuietly(daemonLog)
                  + "\nlast /api/v1/alerts: "
                  + lastAlerts.get()
                  + "\n/api/v1/recipes: "
                  + get(http, "/api/v1/recipes")
                  + "\n/api/v1/status: "
                  + get(http, "/api/v1/status")
                  + "\nthreads (the daemon replaced bash: its pid is the JVM's):\n"
                  + DaemonProcess.threads(daemon.pid()),
              e);
        }
      } finally {
        daemon.destroy();
        assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(daemon.exitValue()).isZero();
    }
  }

  record Run(int exit, String output) {}

  private static ProcessBuilder builder(List<String> lines, Map<String, String> env) {
    ProcessBuilder b =
        new ProcessBuilder("bash", "-e", "-c", String.join("\n", lines))
            .directory(Path.of("").toAbsolutePath().toFile())
            .redirectErrorStream(true);
    b.environment().putAll(env);
    return b;
  }

  private static Run bash(List<String> lines, Map<String, String> env) throws Exception {
    Process p = builder(lines, env).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out);
  }

  private static Process start(List<String> lines, Map<String, String> env, Path log)
      throws IOException {
    // exec: the daemon replaces bash, so SIGTERM reaches it.
    List<String> withExec = new ArrayList<>(lines);
    withExec.set(withExec.size() - 1, "exec " + withExec.get(withExec.size() - 1));
    return builder(withExec, env).redirectOutput(log.toFile()).start();
  }

  private static String get(HttpClient http, String path) {
    try {
      return http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:9464" + path)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    } catch (IOException | RuntimeException e) {
      return "(no answer: " + e + ")";
    }
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }
}
