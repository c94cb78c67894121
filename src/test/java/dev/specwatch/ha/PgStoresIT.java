package dev.specwatch.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Secret;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.Intent;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SignalValues;
import dev.specwatch.store.ConflictException;
import dev.specwatch.testing.PostgresDatabase;
import dev.specwatch.testing.Transitions;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The PostgreSQL stores against the machine's real PostgreSQL, two "replicas" per test. */
class PgStoresIT {
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  PostgresDatabase pg;
  final List<Database> open = new ArrayList<>();

  @BeforeEach
  void create() throws Exception {
    pg = PostgresDatabase.create();
  }

  @AfterEach
  void drop() throws Exception {
    open.forEach(Database::close);
    pg.close();
  }

  SpecwatchConfig.Database settings(String url, Optional<Secret> password) {
    return new SpecwatchConfig.Database(
        url, Optional.of("postgres"), password, 4, Duration.ofSeconds(2));
  }

  Database replica(String name) throws IOException {
    Database db = Database.open(settings(pg.url(), Optional.empty()), name);
    open.add(db);
    return db;
  }

  static Transition transition(long seq, String alert, Transition.Kind kind) {
    return Transitions.acceptance(seq, alert, kind, T0);
  }

  @Test
  void replicasStartingTogetherMigrateOnceAndASecondRunIsANoOp() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<Future<Database>> starts = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String name = "r" + i;
      starts.add(pool.submit((Callable<Database>) () -> replica(name)));
    }
    for (Future<Database> f : starts) {
      assertThat(f.get()).isNotNull();
    }
    pool.shutdown();
    assertThat(
            pg.queryOne(
                "SELECT count(*) FROM sw_schema_history WHERE success AND version IS NOT NULL"))
        .isEqualTo("3");
    assertThat(open.get(0).migrate()).isZero();
    assertThat(pg.queryOne("SELECT count(*) FROM sw_schema_history")).isEqualTo("3");
  }

  @Test
  void aSlackChannelIsWrittenByOneReplicaAtATimeAndItsPaceHoldsForAll() throws Exception {
    PgChannelPace a = new PgChannelPace(replica("a"));
    PgChannelPace b = new PgChannelPace(replica("b"));
    Duration lease = Duration.ofSeconds(30);
    assertThat(a.take("#mtp", T0, lease)).isEmpty();
    // Held by a: b asks again shortly (not at the lease's end).
    assertThat(b.take("#mtp", T0.plusMillis(10), lease)).contains(T0.plusMillis(110));
    assertThat(b.take("#other", T0, lease)).as("another channel is free").isEmpty();
    a.release("#mtp", T0.plusSeconds(1));
    assertThat(b.take("#mtp", T0.plusMillis(500), lease)).contains(T0.plusSeconds(1));
    assertThat(b.take("#mtp", T0.plusSeconds(1), lease)).isEmpty();
    // b dies holding it: its lease frees the channel, and its late release changes nothing.
    assertThat(a.take("#mtp", T0.plusSeconds(20), lease)).isPresent();
    assertThat(a.take("#mtp", T0.plusSeconds(31), lease)).isEmpty();
    b.release("#mtp", T0.plusSeconds(600));
    a.release("#mtp", T0.plusSeconds(32));
    assertThat(b.take("#mtp", T0.plusSeconds(32), lease)).isEmpty();
  }

  /** A firing intent for Slack, due now. */
  static Intent firing(long seq) {
    return Intent.of(
        "slack",
        Intent.Kind.FIRING,
        transition(seq, "qwen/acceptance_rate", Transition.Kind.FIRING),
        Instant.now().minusSeconds(1));
  }

  @Test
  void anIntentIsClaimedByOneReplicaAndDeliveredOnce() throws Exception {
    Clock clock = Clock.systemUTC();
    PgOutbox a = new PgOutbox(replica("a"), clock);
    PgOutbox b = new PgOutbox(replica("b"), clock);
    Intent firing = firing(7);
    a.add(List.of(firing));
    b.add(List.of(firing)); // queued twice (a replica died before recording it): one row
    assertThat(b.pending()).hasSize(1);

    assertThat(a.claim(firing)).isTrue();
    assertThat(b.claim(firing)).as("held by a").isFalse();
    assertThat(a.claim(firing)).as("held by a's other worker").isFalse();
    a.delivered(firing);
    a.release(firing);
    assertThat(b.pending()).isEmpty();
    assertThat(b.claim(firing)).as("delivered").isFalse();
    a.add(List.of(firing));
    assertThat(b.pending()).as("a delivered intent queued again stays delivered").isEmpty();
  }

  @Test
  void aReleasedOrRescheduledIntentCanBeClaimedElsewhereOnlyWhenDue() throws Exception {
    Clock clock = Clock.systemUTC();
    PgOutbox a = new PgOutbox(replica("a"), clock);
    PgOutbox b = new PgOutbox(replica("b"), clock);
    Intent firing = firing(8);
    a.add(List.of(firing));
    assertThat(a.claim(firing)).isTrue();
    a.release(firing);
    assertThat(b.claim(firing)).as("released").isTrue();
    Intent later = firing.retryAt(Instant.now().plusSeconds(60), "503");
    b.reschedule(later);
    b.release(later);
    assertThat(a.claim(firing)).as("not due for a minute").isFalse();
    assertThat(a.pending()).singleElement().extracting(Intent::attempts).isEqualTo(1);
  }

  @Test
  void aClaimInFlightIsRenewedAndAClaimThatRanOutIsTakenOverAsUncertain() throws Exception {
    dev.specwatch.testing.MutableClock clock = new dev.specwatch.testing.MutableClock(T0);
    PgOutbox a = new PgOutbox(replica("a"), clock);
    PgOutbox b = new PgOutbox(replica("b"), clock);
    Intent firing =
        Intent.of(
            "slack",
            Intent.Kind.FIRING,
            transition(9, "qwen/acceptance_rate", Transition.Kind.FIRING),
            T0.minusSeconds(1));
    a.add(List.of(firing));
    assertThat(a.claim(firing)).isTrue();
    assertThat(a.tookOver(firing)).as("a fresh claim").isFalse();
    clock.advance(Duration.ofSeconds(15));
    a.renew(); // the attempt is still in flight at 15 s: its lease moves to 35 s
    clock.advance(Duration.ofSeconds(10));
    assertThat(b.claim(firing)).as("renewed past the first 20 s lease").isFalse();
    // a dies: no more renewals. Its lease runs out at 35 s, 20 s after the last renewal.
    clock.advance(Duration.ofSeconds(11));
    assertThat(b.claim(firing)).isTrue();
    assertThat(b.tookOver(firing)).as("a's outcome is unknown").isTrue();
    assertThat(b.tookOver(firing)).as("asked once").isFalse();
    b.delivered(firing);
    b.release(firing);
    assertThat(a.pending()).isEmpty();
  }

  @Test
  void aReplicaThatLostItsShardCannotOverwriteTheNewerState() throws Exception {
    Clock clock = Clock.systemUTC();
    PgStateStore first = new PgStateStore(replica("a"), 2, clock);
    PgStateStore second = new PgStateStore(replica("b"), 2, clock);
    AlertState s1 = first.load();
    second.load();
    first.save(s1.withNextSequence(100));
    assertThatThrownBy(() -> second.save(s1.withNextSequence(200)))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining("shard 2");
    assertThat(second.load().nextSequence()).isEqualTo(100);
    second.save(second.load().withNextSequence(300));
    assertThat(first.load().nextSequence()).isEqualTo(300);
    assertThat(new PgStateStore(replica("c"), 3, clock).load().alerts()).isEmpty();
  }

  @Test
  void aStateIsSavedAsUtf8TextAndReadBackEqual() throws Exception {
    // The state goes to PostgreSQL as UTF-8 bytes turned into text there (convert_from).
    PgStateStore store = new PgStateStore(replica("a"), 1, Clock.systemUTC());
    AlertState empty = store.load();
    AlertState named =
        empty.withModels(
            java.util.Map.of(
                "qwen-é-中文/a\"b",
                new dev.specwatch.alerting.RecipeModel(
                    null,
                    "learning: 6h of active history, needs 24h",
                    T0,
                    Duration.ofSeconds(30))));
    store.save(named);
    assertThat(store.load()).isEqualTo(named);
    assertThat(pg.queryOne("SELECT state FROM sw_alert_state WHERE shard = 1"))
        .contains("\"qwen-é-中文/a\\\"b\":{");
    store.save(store.load().withNextSequence(5));
    assertThat(store.load().models()).isEqualTo(named.models());
  }

  @Test
  void historyKeepsATransitionAppendedTwiceOnce() throws Exception {
    PgHistory a = new PgHistory(replica("a"));
    PgHistory b = new PgHistory(replica("b"));
    Transition t = transition(9, "qwen/acceptance_rate", Transition.Kind.FIRING);
    a.append(List.of(t));
    b.append(List.of(t, transition(10, "qwen/acceptance_rate", Transition.Kind.RESOLVED)));
    assertThat(a.between(Instant.MIN, Instant.MAX))
        .extracting(Transition::sequence)
        .containsExactly(9L, 10L);
    assertThat(a.between(T0.plusSeconds(1), Instant.MAX)).isEmpty();
  }

  @Test
  void aSilenceAddedThroughOneReplicaHoldsOnTheOther() throws Exception {
    PgSilences a = new PgSilences(replica("a"));
    PgSilences b = new PgSilences(replica("b"));
    Instant now = Instant.now();
    a.add(
        new Silence("s1", "qwen", Optional.empty(), now, now.plusSeconds(3600), "upgrade", "ops"));
    assertThat(b.load())
        .singleElement()
        .satisfies(s -> assertThat(s.matches("qwen", "acceptance_rate", now)).isTrue());
    assertThat(b.expire("s1", now.plusSeconds(1))).isTrue();
    assertThat(a.expire("s1", now.plusSeconds(2))).as("already ended").isFalse();
    assertThat(a.load().get(0).matches("qwen", "acceptance_rate", now.plusSeconds(5))).isFalse();
    b.prune(now.plusSeconds(10));
    assertThat(a.load()).isEmpty();
  }

  @Test
  void keyedStoresAreSharedAndKeepWritesThatFailed() throws Exception {
    Clock clock = Clock.systemUTC();
    PgKeyedStore<Transition> a =
        new PgKeyedStore<>(replica("a"), "firing", Transition.class, clock);
    PgKeyedStore<Transition> b =
        new PgKeyedStore<>(replica("b"), "firing", Transition.class, clock);
    a.put("qwen/acceptance_rate", transition(1, "qwen/acceptance_rate", Transition.Kind.FIRING));
    assertThat(b.get("qwen/acceptance_rate")).isPresent();
    assertThat(b.all()).containsOnlyKeys("qwen/acceptance_rate");
    b.remove("qwen/acceptance_rate");
    assertThat(a.get("qwen/acceptance_rate")).isEmpty();
  }

  @Test
  void everyReplicaReadsEveryShardsEvaluationAsOne() throws Exception {
    Database db = replica("a");
    Cluster cluster = new Cluster(db, settings(pg.url(), Optional.empty()), Clock.systemUTC());
    RecipeSnapshot ok =
        new RecipeSnapshot(
            "b",
            "vllm",
            RecipeState.OK,
            new SignalValues(0.7, 3.1, List.of(0.9, Double.NaN), 30.0, 18.0, 40.0, 3000.0, 10.0),
            List.of(),
            Optional.empty(),
            Optional.empty());
    RecipeSnapshot idle =
        new RecipeSnapshot(
            "a",
            "vllm",
            RecipeState.IDLE,
            new SignalValues(Double.NaN, Double.NaN, List.of(), 0.0, 0.0, 0.0, 0.0, null),
            List.of(),
            Optional.empty(),
            Optional.of("no traffic"));
    cluster.evaluated(1, new Evaluation(T0, Duration.ofMinutes(5), List.of(ok), 3));
    cluster.evaluated(
        2, new Evaluation(T0.minusSeconds(5), Duration.ofMinutes(5), List.of(idle), 4));
    Evaluation merged =
        new Cluster(replica("b"), settings(pg.url(), Optional.empty()), Clock.systemUTC())
            .evaluation()
            .orElseThrow();
    assertThat(merged.recipes()).extracting(RecipeSnapshot::recipe).containsExactly("a", "b");
    assertThat(merged.recipes().get(1)).isEqualTo(ok);
    assertThat(merged.recipes().get(0).signals().acceptanceRate()).isNaN();
    assertThat(merged.queries()).isEqualTo(7);
    assertThat(merged.evaluatedAt()).as("the oldest shard's time").isEqualTo(T0.minusSeconds(5));
  }

  @Test
  void anUnreachableDatabaseIsAClearErrorWithoutItsPassword() {
    String planted = "db-password-planted-4242";
    assertThatThrownBy(
            () ->
                Database.open(
                    settings(
                        "jdbc:postgresql://127.0.0.1:1/specwatch?password=" + planted,
                        Optional.of(Secret.of(planted))),
                    "x"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot connect to database jdbc:postgresql://127.0.0.1:1/specwatch:")
        .hasMessageContaining("refused")
        .hasMessageNotContaining(planted);
  }
}
