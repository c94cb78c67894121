package dev.specwatch.ha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.Fleet;
import dev.specwatch.testing.HeldClock;
import dev.specwatch.testing.PostgresDatabase;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of {@code specwatch run} processes (the shaded jar) on one fresh PostgreSQL database,
 * against a real Prometheus scraping the simulator's {@code cluster.yaml} timeline (healthy 10 s,
 * regressed 40 s, recovered), posting to one Slack Web API stand-in.
 */
final class ClusterRun implements AutoCloseable {
  static final Duration REGRESSION = Duration.ofSeconds(10);
  static final Duration RECOVERY = Duration.ofSeconds(50);
  static final String TOKEN = "xoxb-cluster-planted-4711";
  static final String DB_PASSWORD = "db-password-planted-0815";
  static final int SHARDS = 4;
  static final ObjectMapper JSON = new ObjectMapper();

  final Path dir;
  final String url;
  final AutoCloseable database;
  final Fleet fleet;

  /**
   * The simulator's timeline stands at its first moment until every replica is ready ({@link
   * #start}) or the test releases it ({@link #startHeld}, {@link #release}): a slow start of three
   * JVMs never eats into the scenario's healthy phase.
   */
  private final HeldClock timeline = new HeldClock();

  final FakeSlackApi slack;
  final List<Replica> replicas = new ArrayList<>();

  /** Slack's grouping of every replica (before {@link #start}); a 2 s group_wait otherwise. */
  void grouping(String flowMapping) throws IOException {
    for (Replica r : replicas) {
      r.write(flowMapping);
    }
  }

  final HttpClient http = HttpClient.newHttpClient();

  /** One {@code specwatch run} process. */
  final class Replica {
    final int index;

    /** The port this replica's current process bound (it is told port 0). */
    volatile int port;

    final Path config;
    final Path log;
    Process process;
    private DaemonProcess daemon;

    Replica(int index) throws IOException {
      this.index = index;
      this.config = dir.resolve("specwatch-" + index + ".yaml");
      this.log = dir.resolve("specwatch-" + index + ".log");
      write("{group_wait: 2s}");
    }

    /** Its config, with Slack's {@code grouping} (a flow mapping). */
    void write(String grouping) throws IOException {
      DaemonProcess.Config.of(fleet.prometheus().baseUri())
          .evaluation("1s", "10s")
          .postgres(url, DB_PASSWORD, SHARDS, "1s")
          .slack(TOKEN, slack.apiUrl(), "grouping: " + grouping)
          .write(config);
    }

    void start() throws IOException {
      daemon = DaemonProcess.start(config, log, dir, List.of(), DaemonProcess.jarPath());
      process = daemon.process();
      port = daemon.port();
    }

    /** The replica's name in the cluster: host-pid. */
    boolean is(String instance) {
      return process != null && instance.endsWith("-" + process.pid());
    }

    boolean alive() {
      return process != null && process.isAlive();
    }

    void kill9() throws InterruptedException {
      daemon.kill9();
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
      return daemon.get(path);
    }

    JsonNode json(String path) throws IOException, InterruptedException {
      return daemon.json(path);
    }

    HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
      return daemon.post(path, body);
    }

    boolean ready() {
      return daemon.ready();
    }

    String logText() throws IOException {
      return Files.exists(log) ? Files.readString(log) : "";
    }
  }

  /** On a fresh database of the machine's PostgreSQL. */
  ClusterRun(Path dir, int replicas) throws Exception {
    this(dir, replicas, PostgresDatabase.create());
  }

  private ClusterRun(Path dir, int replicas, PostgresDatabase pg) throws Exception {
    this(dir, replicas, pg.url(), pg);
  }

  /**
   * @param url the database every replica uses
   * @param database closed with the run (the database dropped, a private server stopped)
   */
  ClusterRun(Path dir, int replicas, String url, AutoCloseable database) throws Exception {
    this(dir, replicas, url, database, "cluster.yaml", List.of("ha", "quiet"));
  }

  /**
   * On a fresh database, against another timeline of the simulator.
   *
   * @param timeline a file in src/test/resources/dev/specwatch/testing
   * @param recipes one policy each, matching the timeline's model {@code it/<recipe>}
   */
  ClusterRun(Path dir, int replicas, String timeline, List<String> recipes) throws Exception {
    this(dir, replicas, PostgresDatabase.create(), timeline, recipes);
  }

  private ClusterRun(
      Path dir, int replicas, PostgresDatabase pg, String timeline, List<String> recipes)
      throws Exception {
    this(dir, replicas, pg.url(), pg, timeline, recipes);
  }

  private ClusterRun(
      Path dir,
      int replicas,
      String url,
      AutoCloseable database,
      String timeline,
      List<String> recipes)
      throws Exception {
    this.dir = dir;
    this.url = url;
    this.database = database;
    this.slack = new FakeSlackApi();
    this.fleet = Fleet.startHeld("/dev/specwatch/testing/" + timeline, this.timeline);
    for (String recipe : recipes) {
      DaemonProcess.policy(
          dir.resolve("alerts"), recipe, "it/" + recipe, "for: 2s\nkeep_firing_for: 2s\n");
    }
    for (int i = 0; i < replicas; i++) {
      this.replicas.add(new Replica(i));
    }
  }

  /** Starts every replica, waits until each is ready, then starts the scenario's timeline. */
  void start() throws Exception {
    startHeld();
    release();
  }

  /** Starts the scenario's timeline: what the test needed before it is done. */
  void release() {
    timeline.release();
  }

  /** Starts every replica and waits until each is ready; the timeline still stands. */
  void startHeld() throws Exception {
    for (Replica r : replicas) {
      r.start();
    }
    for (Replica r : replicas) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!r.ready()) {
        if (System.nanoTime() > deadline || !r.alive()) {
          throw new IllegalStateException(
              "replica " + r.index + " did not become ready:\n" + r.logText());
        }
        Thread.sleep(200);
      }
    }
  }

  /** The job that evaluates {@code recipe} (as the daemon names it). */
  static String jobOf(String recipe) {
    int shard = Math.floorMod(recipe.hashCode(), SHARDS);
    return shard == 0 ? "evaluation" : "evaluation-" + shard;
  }

  static boolean firing(FakeSlackApi.Call c, String recipe) {
    return c.method().equals("chat.postMessage")
        && !c.params().containsKey("thread_ts")
        && c.params().getOrDefault("text", "").startsWith("[WARNING] " + recipe + ": ");
  }

  static boolean resolve(FakeSlackApi.Call c, String recipe) {
    String text = c.params().getOrDefault("text", "");
    return (c.method().equals("chat.update") || !c.params().containsKey("thread_ts"))
        && text.startsWith("[RESOLVED] " + recipe + ": ");
  }

  long count(java.util.function.BiPredicate<FakeSlackApi.Call, String> what, String recipe) {
    return slack.accepted().stream().filter(c -> what.test(c, recipe)).count();
  }

  /** Waits until Slack accepted {@code what} for the recipe; false after {@code within}. */
  boolean await(
      java.util.function.BiPredicate<FakeSlackApi.Call, String> what,
      String recipe,
      Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (count(what, recipe) > 0) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }

  Instant at(Duration offset) {
    return fleet.startedAt().plus(offset);
  }

  String logs() throws IOException {
    StringBuilder all = new StringBuilder();
    for (Replica r : replicas) {
      all.append("---- replica ").append(r.index).append('\n').append(r.logText());
    }
    return all.toString();
  }

  @Override
  public void close() throws IOException {
    for (Replica r : replicas) {
      if (r.process != null) {
        r.process.destroyForcibly();
      }
    }
    fleet.close();
    slack.close();
    try {
      for (Replica r : replicas) {
        if (r.process != null) {
          r.process.waitFor(10, TimeUnit.SECONDS);
        }
      }
      database.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("cannot drop the test database", e);
    }
  }
}
