package dev.specwatch.chaos;

import com.sun.net.httpserver.HttpServer;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.Fleet;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One fault scenario against real components: a real Prometheus scraping the simulator's chaos
 * timeline (healthy 10 s, regressed 30 s, recovered), {@code specwatch run} as its own process (the
 * shaded jar, optionally as user nobody so file permissions apply), a Slack Web API stand-in that
 * can answer 429/500, hang or trickle, and a webhook receiver. {@link #finish} counts what Slack
 * and the webhook actually accepted for the one expected alert (a firing, then its resolve) and
 * writes one row of the reliability table to {@code target/chaos/}.
 */
final class ChaosRun implements AutoCloseable {
  static final Duration REGRESSION = Duration.ofSeconds(10);
  static final Duration RECOVERY = Duration.ofSeconds(40);
  static final String TOKEN = "xoxb-chaos-planted-31337";

  /** The second Slack notifier's token and channel, in the two-notifier scenario. */
  static final String TOKEN_B = "xoxb-chaos-b-planted-4242";

  static final String CHANNEL_B = "#team-b";

  final Path dir;
  final Fleet fleet;
  final FakeSlackApi slack;

  /** The port the daemon's current process bound (it is told port 0, and logs what it got). */
  volatile int port;

  final Path config;
  final Path log;
  final boolean asNobody;
  private final HttpServer webhook;
  private final List<String[]> webhookEvents = Collections.synchronizedList(new ArrayList<>());
  private volatile DaemonProcess daemon;

  /** The Slack channels the scenario posts to, each expecting one firing and one resolve. */
  final List<String> channels;

  private ChaosRun(Path dir, boolean asNobody, boolean twoSlack) throws Exception {
    this.dir = dir;
    this.channels = twoSlack ? List.of("#mtp", CHANNEL_B) : List.of("#mtp");
    this.asNobody = asNobody;
    this.slack = new FakeSlackApi();
    this.webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext(
        "/",
        ex -> {
          String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          webhookEvents.add(
              new String[] {
                ex.getRequestHeaders().getFirst("X-Specwatch-Event"),
                body.contains("\"alert_id\" : \"chaos/") || body.contains("\"alert_id\":\"chaos/")
                    ? "chaos"
                    : "other",
                Instant.now().toString()
              });
          ex.sendResponseHeaders(204, -1);
          ex.close();
        });
    webhook.start();
    this.fleet = Fleet.start("/dev/specwatch/testing/chaos.yaml");
    DaemonProcess.policy(
        dir.resolve("alerts"), "chaos", "it/chaos", "for: 2s\nkeep_firing_for: 2s\n");
    DaemonProcess.Config c =
        DaemonProcess.Config.of(fleet.prometheus().baseUri())
            .evaluation("1s", "10s")
            // A lone alert waits its group_wait, then goes alone: the grouping path in every fault.
            .slack(TOKEN, slack.apiUrl(), "grouping: {group_wait: 2s}");
    if (twoSlack) {
      c.slack("team-b", CHANNEL_B, TOKEN_B, slack.apiUrl(), "grouping: {group_wait: 0s}");
    }
    this.config =
        c.webhook("http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook")
            .write(dir.resolve("specwatch.yaml"));
    this.log = dir.resolve("specwatch.log");
    if (asNobody) {
      // Everything the daemon reads is readable by nobody; its state directory is its own.
      Files.copy(
          Path.of(DaemonProcess.jarPath()),
          dir.resolve("specwatch.jar"),
          StandardCopyOption.REPLACE_EXISTING);
      Files.createDirectories(dir.resolve("state"));
      exec("chmod", "-R", "a+rX", dir.toString());
      exec("chown", "-R", "65534:65534", dir.resolve("state").toString());
    }
  }

  static ChaosRun start(Path dir) throws Exception {
    return start(dir, false);
  }

  /** Starts the fleet, the stand-ins and the daemon; returns once the daemon is ready. */
  static ChaosRun start(Path dir, boolean asNobody) throws Exception {
    return start(dir, asNobody, false);
  }

  /**
   * @param twoSlack a second Slack notifier (its own name, token and channel) beside the first
   */
  static ChaosRun start(Path dir, boolean asNobody, boolean twoSlack) throws Exception {
    ChaosRun run = new ChaosRun(dir, asNobody, twoSlack);
    run.startDaemon();
    run.awaitReady();
    return run;
  }

  void startDaemon() throws IOException {
    daemon =
        DaemonProcess.start(
            config,
            log,
            dir,
            asNobody
                ? List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--")
                : List.of(),
            asNobody ? dir.resolve("specwatch.jar").toString() : DaemonProcess.jarPath());
    port = daemon.port();
  }

  void awaitReady() throws Exception {
    if (!ready(Duration.ofSeconds(60))) {
      throw new IllegalStateException("specwatch did not become ready:\n" + Files.readString(log));
    }
  }

  /** Whether /readyz answers 200 within {@code within}. */
  boolean ready(Duration within) throws InterruptedException {
    return daemon.ready(within);
  }

  void kill9() throws InterruptedException {
    daemon.kill9();
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return daemon.get(path);
  }

  HttpResponse<String> reload() throws IOException, InterruptedException {
    return daemon.post("/-/reload", null, null, Duration.ofSeconds(30));
  }

  /** Sleeps until {@code offset} into the simulator's timeline. */
  void at(Duration offset) throws InterruptedException {
    long wait = Duration.between(Instant.now(), fleet.startedAt().plus(offset)).toMillis();
    if (wait > 0) {
      Thread.sleep(wait);
    }
  }

  /** Waits until Slack has been asked to post the firing (it may still be hanging). */
  void awaitFiringAttempt() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (slack.calls().stream().anyMatch(ChaosRun::firing)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("no firing post was attempted");
  }

  static boolean firing(FakeSlackApi.Call c) {
    return c.method().equals("chat.postMessage")
        && !c.params().containsKey("thread_ts")
        && c.params().getOrDefault("text", "").startsWith("[WARNING] chaos: ");
  }

  static boolean resolve(FakeSlackApi.Call c) {
    String text = c.params().getOrDefault("text", "");
    return (c.method().equals("chat.update") || !c.params().containsKey("thread_ts"))
        && text.startsWith("[RESOLVED] chaos: ");
  }

  static void exec(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed");
    }
  }

  /** What Slack and the webhook accepted for the alert, and when. */
  record Figures(
      String fault,
      int lost,
      int duplicated,
      Double fireDelay,
      Double resolveDelay,
      Double webhookFireDelay,
      String note) {
    String row() {
      return String.join(
          "\t",
          fault,
          Integer.toString(lost),
          Integer.toString(duplicated),
          seconds(fireDelay),
          seconds(resolveDelay),
          seconds(webhookFireDelay),
          note);
    }

    private static String seconds(Double s) {
      return s == null ? "–" : String.format(Locale.ROOT, "%.1f", s);
    }
  }

  /**
   * Waits for the resolve (at most 45 s after the recovery starts), counts, prints and records the
   * row.
   */
  Figures finish(String fault, String note) throws Exception {
    long deadline = fleet.startedAt().plus(RECOVERY).plusSeconds(45).toEpochMilli();
    while (System.currentTimeMillis() < deadline
        && !(channels.stream().allMatch(ch -> count(slack.accepted(), ch, ChaosRun::resolve) > 0)
            && webhookCount("resolved") > 0)) {
      Thread.sleep(200);
    }
    Thread.sleep(3000); // anything sent twice would arrive by now
    List<FakeSlackApi.Call> accepted = slack.accepted();
    List<Long> counts = new ArrayList<>();
    for (String ch : channels) {
      counts.add(count(accepted, ch, ChaosRun::firing));
      counts.add(count(accepted, ch, ChaosRun::resolve));
    }
    counts.add(webhookCount("firing"));
    counts.add(webhookCount("resolved"));
    int lost = (int) counts.stream().filter(n -> n == 0).count();
    int duplicated = (int) counts.stream().mapToLong(n -> Math.max(0, n - 1)).sum();
    Instant regression = fleet.startedAt().plus(REGRESSION);
    Instant recovery = fleet.startedAt().plus(RECOVERY);
    Figures f =
        new Figures(
            fault,
            lost,
            duplicated,
            accepted.stream()
                .filter(ChaosRun::firing)
                .findFirst()
                .map(c -> since(regression, c.at()))
                .orElse(null),
            accepted.stream()
                .filter(ChaosRun::resolve)
                .findFirst()
                .map(c -> since(recovery, c.at()))
                .orElse(null),
            webhookEvents.stream()
                .filter(e -> "firing".equals(e[0]) && e[1].equals("chaos"))
                .findFirst()
                .map(e -> since(regression, Instant.parse(e[2])))
                .orElse(null),
            note);
    Path out = Path.of("target/chaos");
    Files.createDirectories(out);
    Files.writeString(
        out.resolve(fault.replaceAll("[^A-Za-z0-9]+", "-") + ".tsv"),
        f.row() + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING);
    System.out.println("chaos: " + f.row().replace('\t', '|'));
    return f;
  }

  /**
   * What {@code channel} accepted of one kind; a call to the other notifier's channel with this
   * channel's token, or the reverse, counts for neither.
   */
  private long count(
      List<FakeSlackApi.Call> accepted,
      String channel,
      java.util.function.Predicate<FakeSlackApi.Call> kind) {
    String token = "Bearer " + (channel.equals(CHANNEL_B) ? TOKEN_B : TOKEN);
    return accepted.stream()
        .filter(kind)
        .filter(c -> token.equals(c.authorization()))
        .filter(c -> channel.equals(c.params().get("channel")) || channels.size() == 1)
        .count();
  }

  long webhookCount(String event) {
    return webhookEvents.stream().filter(e -> event.equals(e[0]) && e[1].equals("chaos")).count();
  }

  private static double since(Instant from, Instant to) {
    return Duration.between(from, to).toMillis() / 1000.0;
  }

  String logText() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() {
    if (daemon != null) {
      daemon.close();
    }
    slack.close();
    webhook.stop(0);
    fleet.close();
  }
}
