package dev.specwatch.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.FakeSlackApi;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster faults for {@code make chaos} (docs/RELIABILITY.md): two replicas on the machine's
 * PostgreSQL, recipe "ha" regressed from 10 s to 50 s of the fleet's timeline (cluster.yaml). Each
 * scenario counts what Slack accepted for it: one firing and one resolve, nothing lost, nothing
 * twice, and writes its row to {@code target/chaos/}. The storm runs one and three replicas on its
 * own timeline (storm.yaml: thirty recipes regress in the same second) against a Slack stand-in
 * that refuses more than one write a second a channel.
 */
@Tag("chaos")
class ClusterChaosIT {
  @TempDir Path dir;

  @Test
  void aReplicaPausedMidAlertForLongerThanItsLeaseAndShards() throws Exception {
    try (ClusterRun run = new ClusterRun(dir, 2)) {
      run.start();
      assertThat(run.await(ClusterRun::firing, "ha", Duration.ofSeconds(60))).isTrue();
      // SIGSTOP: the process keeps its connections and claims but does nothing (a GC pause, a
      // frozen VM). The other replica takes its shards and any claim whose lease runs out.
      ClusterRun.Replica paused = run.replicas.get(0);
      signal(paused, "STOP");
      Thread.sleep(30_000);
      signal(paused, "CONT");
      row(run, "cluster: one of 2 replicas paused (SIGSTOP) 30 s while firing", "");
    }
  }

  @Test
  void theDatabaseStallsBehindATableLockWhileFiring() throws Exception {
    try (ClusterRun run = new ClusterRun(dir, 2)) {
      run.start();
      assertThat(run.await(ClusterRun::firing, "ha", Duration.ofSeconds(60))).isTrue();
      int probes = 0;
      int failed = 0;
      try (Connection lock = DriverManager.getConnection(run.url, "postgres", "")) {
        lock.setAutoCommit(false);
        try (Statement st = lock.createStatement()) {
          st.execute(
              "LOCK TABLE sw_outbox, sw_alert_state, sw_shard_evaluation, sw_silence"
                  + " IN ACCESS EXCLUSIVE MODE");
        }
        long until = System.nanoTime() + Duration.ofSeconds(25).toNanos();
        while (System.nanoTime() < until) {
          for (ClusterRun.Replica r : run.replicas) {
            probes++;
            try {
              HttpResponse<String> health = r.get("/healthz");
              if (health.statusCode() != 200) {
                failed++;
              }
            } catch (IOException e) {
              failed++;
            }
          }
          Thread.sleep(1000);
        }
        lock.rollback();
      }
      row(
          run,
          "cluster: database stalled 25 s behind a table lock while firing",
          "/healthz failed " + failed + " of " + probes + " probes");
      assertThat(failed).as("liveness never waits on the database").isZero();
    }
  }

  @Test
  void aStormOfThirtyRegressionsOnOneReplicaIsOneMessage() throws Exception {
    storm(1);
  }

  @Test
  void aStormOfThirtyRegressionsAcrossThreeReplicasIsOneMessage() throws Exception {
    storm(3);
  }

  /**
   * Thirty recipes regress in the same second and recover 40 s later, into one channel of a Slack
   * stand-in that refuses a second write within a second (429, Retry-After 1). Grouped (a 10 s
   * group_wait and group_interval, to keep the run short): at most 3 top-level messages naming all
   * 30, at most 100 Slack calls in all (refused ones included), and per recipe exactly one detail
   * (or message of its own) and exactly one recovery, on one replica and on three.
   */
  private void storm(int replicas) throws Exception {
    List<String> recipes =
        IntStream.rangeClosed(1, 30).mapToObj(i -> String.format("storm-%02d", i)).toList();
    try (ClusterRun run = new ClusterRun(dir, replicas, "storm.yaml", recipes)) {
      run.grouping("{group_wait: 10s, group_interval: 10s}");
      run.slack.rateLimit(Duration.ofSeconds(1));
      run.start();
      long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
      while (System.nanoTime() < deadline
          && !recipes.stream().allMatch(r -> recovered(run, r) > 0)) {
        Thread.sleep(500);
      }
      Thread.sleep(5000); // anything late would show now
      List<FakeSlackApi.Call> accepted = run.slack.accepted();
      List<FakeSlackApi.Call> top =
          accepted.stream()
              .filter(c -> c.method().equals("chat.postMessage"))
              .filter(c -> !c.params().containsKey("thread_ts"))
              .toList();
      long lost = 0;
      long duplicated = 0;
      double slowestFire = 0;
      double slowestResolve = 0;
      StringBuilder counts = new StringBuilder();
      java.util.Set<String> named = new java.util.TreeSet<>();
      for (String r : recipes) {
        long messages = messages(run, r);
        long recoveries = recovered(run, r);
        lost += (messages == 0 ? 1 : 0) + (recoveries == 0 ? 1 : 0);
        duplicated += Math.max(0, messages - 1) + Math.max(0, recoveries - 1);
        counts.append(
            String.format("%s: %d messages or details, %d recoveries%n", r, messages, recoveries));
        boolean listed =
            accepted.stream()
                .filter(c -> !c.params().containsKey("thread_ts"))
                .anyMatch(c -> c.params().getOrDefault("blocks", "").contains(r + ":"));
        if (listed) {
          named.add(r);
        }
        slowestFire =
            Math.max(
                slowestFire, seconds(run, ClusterChaosIT::listedFiring, r, ClusterRun.REGRESSION));
        slowestResolve =
            Math.max(
                slowestResolve, seconds(run, ClusterChaosIT::recovery, r, ClusterRun.RECOVERY));
      }
      int calls = run.slack.calls().size();
      write(
          String.join(
              "\t",
              "cluster: storm, 30 recipes regress at once on "
                  + replicas
                  + " replica(s), Slack 1 write/s, grouped",
              "" + lost,
              "" + duplicated,
              String.format(Locale.ROOT, "%.1f", slowestFire),
              String.format(Locale.ROOT, "%.1f", slowestResolve),
              "-",
              top.size()
                  + " top-level message(s), "
                  + calls
                  + " Slack calls, "
                  + run.slack.rateLimited()
                  + " refused 429; delays are the last recipe's"));
      String log =
          accepted.stream()
              .map(
                  c ->
                      c.at()
                          + " "
                          + c.method()
                          + " ts="
                          + c.params().get("ts")
                          + " thread="
                          + c.params().get("thread_ts")
                          + " "
                          + c.params().getOrDefault("text", "").lines().findFirst().orElse(""))
              .collect(java.util.stream.Collectors.joining("\n"));
      assertThat(lost).as("%s%s", counts, log).isZero();
      assertThat(duplicated).as("%s%s", counts, log).isZero();
      assertThat(top).as(log).hasSizeLessThanOrEqualTo(3);
      assertThat(named).as("every recipe named at the top level%n%s", log).hasSize(30);
      assertThat(calls).as(log).isLessThanOrEqualTo(100);
    }
  }

  /**
   * Five recipes regress together into one channel; Slack accepts the group message and never
   * answers; the replica is killed (-9) and restarted. Before: a second group message, the first
   * red forever (group messages carried no metadata). After: the restarted replica finds the
   * message by its metadata, adopts it, and edits it as the storm recovers.
   */
  @Test
  void aGroupedStormKilledTheInstantSlackAcceptsItsMessageIsPostedOnce() throws Exception {
    List<String> recipes =
        IntStream.rangeClosed(1, 5).mapToObj(i -> String.format("storm-%02d", i)).toList();
    try (ClusterRun run = new ClusterRun(dir, 1, "storm.yaml", recipes)) {
      run.grouping("{group_wait: 5s, group_interval: 5s}");
      run.slack.acceptThenHang();
      run.start();
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (System.nanoTime() < deadline && topLevel(run).isEmpty()) {
        Thread.sleep(100);
      }
      assertThat(topLevel(run)).as("the group message reached Slack").hasSize(1);
      ClusterRun.Replica replica = run.replicas.get(0);
      replica.kill9();
      run.slack.release();
      replica.start();
      deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (System.nanoTime() < deadline
          && !recipes.stream().allMatch(r -> recovered(run, r) > 0)) {
        Thread.sleep(500);
      }
      Thread.sleep(5000); // anything late would show now
      List<FakeSlackApi.Call> top = topLevel(run);
      long lost = 0;
      long duplicated = Math.max(0, top.size() - 1);
      for (String r : recipes) {
        long recoveries = recovered(run, r);
        lost += recoveries == 0 ? 1 : 0;
        duplicated += Math.max(0, recoveries - 1);
      }
      List<FakeSlackApi.Call> edits =
          run.slack.accepted().stream().filter(c -> c.method().equals("chat.update")).toList();
      boolean green =
          !edits.isEmpty()
              && !edits.get(edits.size() - 1).params().get("blocks").contains(":red_circle:");
      write(
          String.join(
              "\t",
              "grouped storm (5 recipes, one channel): kill -9 after Slack accepted the group"
                  + " message, before it answered",
              "" + lost,
              "" + duplicated,
              "-",
              "-",
              "-",
              top.size()
                  + " top-level message(s); the group message "
                  + (green ? "edited green" : "left red")));
      assertThat(replica.logText()).contains("adopted, not posted again");
      assertThat(top).as("before: 2 top-level group messages").hasSize(1);
      assertThat(green).as("before: the first group message stayed red").isTrue();
      assertThat(lost).isZero();
      assertThat(duplicated).isZero();
    }
  }

  private static List<FakeSlackApi.Call> topLevel(ClusterRun run) {
    return run.slack.accepted().stream()
        .filter(c -> c.method().equals("chat.postMessage"))
        .filter(c -> !c.params().containsKey("thread_ts"))
        .toList();
  }

  /** The recipe's own message (an alert sent alone) or its detail in a group's thread. */
  private static long messages(ClusterRun run, String recipe) {
    return run.slack.accepted().stream()
        .filter(c -> c.method().equals("chat.postMessage"))
        .filter(c -> c.params().getOrDefault("text", "").startsWith("[WARNING] " + recipe + ": "))
        .count();
  }

  /** A group message (post or edit) listing the recipe as firing, or its own message. */
  private static boolean listedFiring(FakeSlackApi.Call c, String recipe) {
    return !c.params().containsKey("thread_ts")
        && (ClusterRun.firing(c, recipe)
            || c.params().getOrDefault("blocks", "").contains(":red_circle: " + recipe + ":"));
  }

  /** Its own resolve edit, or a group thread reply naming it recovered. */
  private static boolean recovery(FakeSlackApi.Call c, String recipe) {
    return (c.method().equals("chat.update") && ClusterRun.resolve(c, recipe))
        || (c.params().containsKey("thread_ts")
            && c.params().getOrDefault("text", "").startsWith(":white_check_mark: Recovered: ")
            && java.util.Arrays.stream(
                    c.params()
                        .get("text")
                        .substring(":white_check_mark: Recovered: ".length())
                        .split(", "))
                .anyMatch(part -> part.startsWith(recipe + " after ")));
  }

  private static long recovered(ClusterRun run, String recipe) {
    return run.slack.accepted().stream().filter(c -> recovery(c, recipe)).count();
  }

  /** Seconds from the timeline's offset to Slack accepting {@code what} for the recipe. */
  private static double seconds(
      ClusterRun run,
      java.util.function.BiPredicate<FakeSlackApi.Call, String> what,
      String recipe,
      Duration offset) {
    Instant from = run.at(offset);
    return run.slack.accepted().stream()
        .filter(c -> what.test(c, recipe))
        .findFirst()
        .map(c -> Duration.between(from, c.at()).toMillis() / 1000.0)
        .orElse(Double.NaN);
  }

  private static void write(String line) throws IOException {
    Path out = Path.of("target/chaos");
    Files.createDirectories(out);
    String fault = line.substring(0, line.indexOf('\t'));
    Files.writeString(
        out.resolve(fault.replaceAll("[^A-Za-z0-9]+", "-") + ".tsv"),
        line + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING);
    System.out.println("chaos: " + line.replace('\t', '|'));
  }

  private static void signal(ClusterRun.Replica r, String signal) throws Exception {
    Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(r.process.pid())).start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
  }

  /** Waits for the resolve, counts, asserts 0 lost and 0 duplicated, writes the row. */
  private static void row(ClusterRun run, String fault, String note) throws Exception {
    boolean resolved = run.await(ClusterRun::resolve, "ha", Duration.ofMinutes(2));
    Thread.sleep(5000); // anything late would show now
    long fires = run.count(ClusterRun::firing, "ha");
    long resolves = run.count(ClusterRun::resolve, "ha");
    long lost = (fires == 0 ? 1L : 0L) + (resolves == 0 ? 1L : 0L);
    long duplicated = Math.max(0, fires - 1) + Math.max(0, resolves - 1);
    Instant regressed = run.at(Duration.ofSeconds(10));
    Instant recovered = run.at(Duration.ofSeconds(50));
    String fire = delay(run, ClusterRun::firing, regressed);
    String resolve = delay(run, ClusterRun::resolve, recovered);
    write(String.join("\t", fault, "" + lost, "" + duplicated, fire, resolve, "-", note));
    assertThat(resolved).as("resolve posted\n%s", run.logs()).isTrue();
    String calls =
        run.slack.accepted().stream()
            .map(
                c ->
                    c.at()
                        + " "
                        + c.method()
                        + " "
                        + c.params().getOrDefault("text", "").lines().findFirst().orElse(""))
            .collect(java.util.stream.Collectors.joining("\n"));
    assertThat(lost).as("%s%n%s", run.logs(), calls).isZero();
    assertThat(duplicated).as("%s%n%s", run.logs(), calls).isZero();
  }

  private static String delay(
      ClusterRun run,
      java.util.function.BiPredicate<FakeSlackApi.Call, String> what,
      Instant from) {
    return run.slack.accepted().stream()
        .filter(c -> what.test(c, "ha"))
        .findFirst()
        .map(
            c ->
                String.format(
                    Locale.ROOT, "%.1f", Duration.between(from, c.at()).toMillis() / 1000.0))
        .orElse("-");
  }
}
