package dev.specwatch.ha;

import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.History;
import dev.specwatch.alerting.Silences;
import dev.specwatch.alerting.StateStore;
import dev.specwatch.alerting.Transition;
import dev.specwatch.digest.DigestLedger;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.NotificationStores;
import dev.specwatch.notify.slack.SlackGroup;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.KeyedStore;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import okio.Buffer;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;

/**
 * One replica's view of the shared database: the stores every replica reads and writes, the
 * clustered scheduler, and what {@code /api/v1/cluster} shows.
 */
public final class Cluster implements AutoCloseable {
  private final Database db;
  private final SpecwatchConfig.Database settings;
  private final Clock clock;
  private final NotificationStores stores;
  private final PgOutbox outbox;

  Cluster(Database db, SpecwatchConfig.Database settings, Clock clock) {
    this.db = db;
    this.settings = settings;
    this.clock = clock;
    this.outbox = new PgOutbox(db, clock);
    this.stores =
        new NotificationStores(
            outbox,
            new SlackThreadStore(
                new PgKeyedStore<>(
                    db, "slack-messages", SlackThreadStore.SlackThread.class, clock)),
            new PgKeyedStore<>(db, "firing", Transition.class, clock),
            new PgKeyedStore<>(db, "slack-groups", SlackGroup.class, clock),
            new PgChannelPace(db),
            db.health());
  }

  /** Connects, migrates the schema and opens the stores. */
  public static Cluster open(SpecwatchConfig.Database settings, Clock clock, String instance)
      throws IOException {
    return new Cluster(Database.open(settings, instance), settings, clock);
  }

  public String instance() {
    return db.instance();
  }

  public int shards() {
    return settings.shards();
  }

  /**
   * The evaluation shard of a recipe: a hash of its name (the same on every replica). Its alerts
   * are the same shard's ({@link AlertKey#shard}), or the cycle of one shard would delete the state
   * of another's alerts.
   */
  public static int shardOf(String recipe, int shards) {
    return AlertKey.shardOf(recipe, shards);
  }

  public StateHealth health() {
    return db.health();
  }

  public NotificationStores notificationStores() {
    return stores;
  }

  public StateStore state(int shard) {
    return new PgStateStore(db, shard, clock);
  }

  public Silences silences() {
    return new PgSilences(db);
  }

  public History history() {
    return new PgHistory(db);
  }

  public KeyedStore<DigestLedger.SentRecord> digestLedger() {
    return new PgKeyedStore<>(db, "digest-sent", DigestLedger.SentRecord.class, clock);
  }

  /** The clustered scheduler of this replica (not started). */
  public Scheduler scheduler(int threads) throws SchedulerException {
    return ClusterScheduler.create(db, settings.checkinInterval(), threads);
  }

  /** Records that this replica ran {@code job} (what /api/v1/cluster shows). */
  public void ran(String job, Instant started, Instant finished) {
    db.attempt(
        "recording a job run",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "INSERT INTO sw_job_run (job, instance, started_at, finished_at)"
                      + " VALUES (?, ?, ?, ?) ON CONFLICT (job) DO UPDATE SET"
                      + " instance = EXCLUDED.instance, started_at = EXCLUDED.started_at,"
                      + " finished_at = EXCLUDED.finished_at")) {
            s.setString(1, job);
            s.setString(2, db.instance());
            s.setTimestamp(3, Timestamp.from(started));
            s.setTimestamp(4, Timestamp.from(finished));
            return s.executeUpdate();
          }
        });
  }

  /** Saves a shard's latest evaluation, which every replica serves. */
  public void evaluated(int shard, Evaluation evaluation) throws IOException {
    // Streamed as UTF-8 bytes and turned into text by PostgreSQL, as PgStateStore saves the state.
    Buffer json = DurableFiles.utf8(evaluation);
    db.call(
        "saving the evaluation",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "INSERT INTO sw_shard_evaluation (shard, evaluated_at, evaluation, instance)"
                      + " VALUES (?, ?, convert_from(?, 'UTF8'), ?) ON CONFLICT (shard) DO UPDATE"
                      + " SET evaluated_at ="
                      + " EXCLUDED.evaluated_at, evaluation = EXCLUDED.evaluation,"
                      + " instance = EXCLUDED.instance")) {
            s.setInt(1, shard);
            s.setTimestamp(2, Timestamp.from(evaluation.evaluatedAt()));
            s.setBinaryStream(3, json.inputStream(), json.size());
            s.setString(4, db.instance());
            return s.executeUpdate();
          }
        });
  }

  /**
   * The latest evaluation of every shard in use, as one: recipes in name order, evaluated at the
   * oldest shard's time (what is certainly current), queries summed.
   */
  public Optional<Evaluation> evaluation() throws IOException {
    List<Evaluation> shards =
        db.call(
            "reading evaluations",
            c -> {
              List<Evaluation> out = new ArrayList<>();
              try (PreparedStatement s =
                  c.prepareStatement(
                      "SELECT evaluation FROM sw_shard_evaluation WHERE shard < ?"
                          + " ORDER BY shard")) {
                s.setInt(1, settings.shards());
                try (ResultSet r = s.executeQuery()) {
                  while (r.next()) {
                    out.add(DurableFiles.JSON.readValue(r.getBytes(1), Evaluation.class));
                  }
                }
              }
              return out;
            });
    return mergeEvaluations(shards);
  }

  /** Evaluations of disjoint shards as one. */
  public static Optional<Evaluation> mergeEvaluations(List<Evaluation> shards) {
    if (shards.isEmpty()) {
      return Optional.empty();
    }
    List<RecipeSnapshot> recipes = new ArrayList<>();
    int queries = 0;
    Instant at = Instant.MAX;
    Duration window = shards.get(0).window();
    for (Evaluation e : shards) {
      recipes.addAll(e.recipes());
      queries += e.queries();
      at = e.evaluatedAt().isBefore(at) ? e.evaluatedAt() : at;
    }
    recipes.sort(Comparator.comparing(RecipeSnapshot::recipe));
    return Optional.of(new Evaluation(at, window, recipes, queries));
  }

  /** Every shard's alert state as one (shards hold disjoint alerts). */
  public AlertState alertState() throws IOException {
    return mergeStates(PgStateStore.all(db));
  }

  public static AlertState mergeStates(List<AlertState> shards) {
    AlertState merged = AlertState.empty();
    for (AlertState s : shards) {
      Map<String, dev.specwatch.alerting.ActiveAlert> alerts = new HashMap<>(merged.alerts());
      alerts.putAll(s.alerts());
      List<Transition> queued = new ArrayList<>(merged.queued());
      queued.addAll(s.queued());
      Map<String, dev.specwatch.alerting.RecipeModel> models = new HashMap<>(merged.models());
      models.putAll(s.models());
      Map<String, dev.specwatch.detect.DropTest.State> detectors =
          new HashMap<>(merged.detectors());
      detectors.putAll(s.detectors());
      merged =
          new AlertState(
              AlertState.VERSION,
              alerts,
              merged.datasourceFailingSince() != null
                  ? merged.datasourceFailingSince()
                  : s.datasourceFailingSince(),
              Math.max(merged.nextSequence(), s.nextSequence()),
              queued,
              models,
              detectors);
    }
    return merged;
  }

  /** Shards at or beyond {@code first} that still have a saved alert state. */
  public List<Integer> shardsFrom(int first) throws IOException {
    return PgStateStore.shardsFrom(db, first);
  }

  /** Deletes a retired shard's state and evaluation. */
  public void retire(int shard) throws IOException {
    db.transaction(
        "retiring a shard",
        c -> {
          for (String table : List.of("sw_alert_state", "sw_shard_evaluation")) {
            try (PreparedStatement s =
                c.prepareStatement("DELETE FROM " + table + " WHERE shard = ?")) {
              s.setInt(1, shard);
              s.executeUpdate();
            }
          }
          return null;
        });
  }

  /** What /api/v1/cluster serves. */
  public ClusterView view() throws IOException {
    return ClusterView.read(db, settings, clock.instant());
  }

  /** Stops the outbox's lease renewal, then closes the pool. */
  @Override
  public void close() {
    outbox.close();
    db.close();
  }
}
