package dev.specwatch.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

/**
 * {@code specwatch run} as its own process, as the integration tests start it: the shaded jar, a
 * config written by {@link Config}, the port it bound read from its log ({@link BoundPort}), and
 * the HTTP calls the tests make to it. One fixture for every test that runs the daemon (DaemonIT,
 * the fault suite's ChaosRun, the cluster's replicas) and the config and policy of those that run
 * it in-process (WebUiIT, SlackActionsIT).
 */
public final class DaemonProcess implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final Process process;
  private final Path log;
  private final int port;

  private DaemonProcess(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** The jar under test: {@code -Dspecwatch.jar}, else {@code target/specwatch.jar}. */
  public static String jarPath() {
    return Path.of(System.getProperty("specwatch.jar", "target/specwatch.jar"))
        .toAbsolutePath()
        .toString();
  }

  /**
   * Writes the policy the daemon tests share into {@code alerts}: recipe {@code recipe} matching
   * {@code model_name} {@code model} of job vllm, k = 3, at least 10 drafts, acceptance below 0.45
   * (clear above 0.5); {@code extra} adds lines ({@code for: 2s\n}).
   */
  public static Path policy(Path alerts, String recipe, String model, String extra)
      throws IOException {
    Files.createDirectories(alerts);
    return Files.writeString(
        alerts.resolve(recipe + ".yaml"),
        "recipe: "
            + recipe
            + "\nmatch: {job: vllm, model_name: \""
            + model
            + "\"}\nnum_speculative_tokens: 3\nmin_drafts: 10\n"
            + extra
            + "thresholds:\n  acceptance_rate: {below: 0.45, clear_above: 0.5}\n",
        StandardCharsets.UTF_8);
  }

  /** A daemon config, built key by key and written as YAML. */
  public static final class Config {
    private final URI prometheus;
    private String evaluation = "{interval: 2s, window: 15s}";
    private String state = "{dir: state}";
    private String server = "{listen: \"127.0.0.1:0\"}";
    private final List<String> notifiers = new ArrayList<>();

    private Config(URI prometheus) {
      this.prometheus = prometheus;
    }

    /**
     * Against {@code prometheus}: every 2 s over 15 s, state in {@code state/}, policies in alerts.
     */
    public static Config of(URI prometheus) {
      return new Config(prometheus);
    }

    /** The state in {@code dir} (a path the YAML can hold as it is). */
    public Config stateDir(Path dir) {
      state = "{dir: \"" + dir + "\"}";
      return this;
    }

    public Config evaluation(String interval, String window) {
      evaluation = "{interval: " + interval + ", window: " + window + "}";
      return this;
    }

    /**
     * The state in PostgreSQL as user postgres (the cluster's replicas); {@code password} and
     * {@code checkin} are left out when null.
     */
    public Config postgres(String url, String password, int shards, String checkin) {
      state =
          "\n  backend: postgres\n  url: \""
              + url
              + "\"\n  user: postgres"
              + (password == null ? "" : "\n  password: \"" + password + "\"")
              + "\n  shards: "
              + shards
              + (checkin == null ? "" : "\n  checkin_interval: " + checkin);
      return this;
    }

    /** The status API and UI require {@code token} (loopback included). */
    public Config bearerToken(String token) {
      server = "{listen: \"127.0.0.1:0\", bearer_token: " + token + "}";
      return this;
    }

    /**
     * A Slack notifier on {@code apiUrl} posting to #mtp; {@code more} adds keys to its flow
     * mapping ({@code grouping: {group_wait: 2s}}, {@code app_token: …}).
     */
    public Config slack(String token, URI apiUrl, String more) {
      return slack("slack", "#mtp", token, apiUrl, more);
    }

    /** A Slack notifier named {@code name} posting to {@code channel}. */
    public Config slack(String name, String channel, String token, URI apiUrl, String more) {
      notifiers.add(
          "{type: slack, name: "
              + name
              + ", token: "
              + token
              + ", channel: \""
              + channel
              + "\", api_url: \""
              + apiUrl
              + "\""
              + (more.isEmpty() ? "" : ", " + more)
              + "}");
      return this;
    }

    public Config webhook(String url) {
      notifiers.add("{type: webhook, url: \"" + url + "\"}");
      return this;
    }

    public Config log() {
      notifiers.add("{type: log}");
      return this;
    }

    /** The YAML text. */
    public String text() {
      StringBuilder out =
          new StringBuilder("prometheus: {url: \"")
              .append(prometheus)
              .append("\"}\nevaluation: ")
              .append(evaluation)
              .append("\npolicies: alerts\nstate: ")
              .append(state)
              .append("\nserver: ")
              .append(server)
              .append('\n');
      if (!notifiers.isEmpty()) {
        out.append("notifiers:\n");
        notifiers.forEach(n -> out.append("  - ").append(n).append('\n'));
      }
      return out.toString();
    }

    public Path write(Path file) throws IOException {
      return Files.writeString(file, text(), StandardCharsets.UTF_8);
    }
  }

  /**
   * Starts {@code specwatch run --config config} in {@code dir}, its output appended to {@code
   * log}, and returns once it listens.
   *
   * @param prefix words before {@code java} (e.g. {@code setpriv …} to run as another user)
   * @param jar the jar to run
   * @param args more arguments of {@code run}
   */
  public static DaemonProcess start(
      Path config, Path log, Path dir, List<String> prefix, String jar, String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(List.of("java", "-jar", jar, "run", "--config", config.toString()));
    cmd.addAll(List.of(args));
    long offset = BoundPort.end(log);
    Process p =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    try {
      // A bound, not a timing: under libfaketime (every clock read reads a file) beside the
      // suite's other forks on two CPUs, a start took over a minute (CI, 2026-12-07).
      return new DaemonProcess(
          p, log, BoundPort.fromLog(p, log, offset, BoundPort.SPECWATCH, Duration.ofMinutes(3)));
    } catch (IOException | RuntimeException e) {
      p.destroyForcibly();
      throw e;
    }
  }

  /** What a command of the jar printed (stdout and stderr) and its exit code. */
  public record Outcome(int exit, String output) {}

  /**
   * Runs {@code jar} with {@code args} to its end (a command, or a daemon that cannot start), with
   * {@code prefix} before {@code java} ({@code setpriv …}).
   */
  public static Outcome runToEnd(List<String> prefix, String jar, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(List.of("java", "-jar", jar));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("did not end within 60 s: " + cmd + "\n" + out);
    }
    return new Outcome(p.exitValue(), out);
  }

  /** The jar under test, run from {@code config}'s directory. */
  public static DaemonProcess start(Path config, Path log, String... args) throws IOException {
    return start(config, log, config.getParent(), List.of(), jarPath(), args);
  }

  public int port() {
    return port;
  }

  public Process process() {
    return process;
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** The daemon's instance name in a cluster ends with its pid. */
  public long pid() {
    return process.pid();
  }

  /**
   * The threads of the JVM {@code pid} ({@code jcmd Thread.print}), for a failure message: where an
   * evaluation or a reload is stuck.
   */
  public static String threads(long pid) {
    try {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(pid),
                  "Thread.print")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(30, TimeUnit.SECONDS);
      return out;
    } catch (IOException e) {
      return "(no thread dump: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }

  /** SIGTERM, as systemd stops it; waits up to {@code within} for the process to end. */
  public boolean stop(Duration within) throws InterruptedException {
    process.destroy();
    return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
  }

  public void kill9() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  public String logText() throws IOException {
    return Files.readString(log);
  }

  private HttpRequest.Builder request(String path, String bearer, Duration timeout) {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(timeout);
    if (bearer != null) {
      r.header("Authorization", "Bearer " + bearer);
    }
    return r;
  }

  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return get(path, null);
  }

  /** GET with {@code Authorization: Bearer bearer} (none when null). */
  public HttpResponse<String> get(String path, String bearer)
      throws IOException, InterruptedException {
    return HTTP.send(
        request(path, bearer, Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  public JsonNode json(String path) throws IOException, InterruptedException {
    return JSON.readTree(get(path).body());
  }

  /** POST of a JSON {@code body} (none when null). */
  public HttpResponse<String> post(String path, String body, String bearer, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest.Builder r = request(path, bearer, timeout);
    if (body == null) {
      r.POST(HttpRequest.BodyPublishers.noBody());
    } else {
      r.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    }
    return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> post(String path, String body)
      throws IOException, InterruptedException {
    return post(path, body, null, Duration.ofSeconds(5));
  }

  /** Whether {@code /readyz} answers 200 now. */
  public boolean ready() {
    try {
      return get("/readyz").statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Whether {@code /readyz} answers 200 within {@code within}. */
  public boolean ready(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (ready()) {
        return true;
      }
      Thread.sleep(200);
    }
    return false;
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
