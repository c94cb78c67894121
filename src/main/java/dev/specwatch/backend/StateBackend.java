package dev.specwatch.backend;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.History;
import dev.specwatch.alerting.Silences;
import dev.specwatch.alerting.StateStore;
import dev.specwatch.digest.DigestLedger;
import dev.specwatch.ha.ClusterView;
import dev.specwatch.ha.Database;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.NotificationStores;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;

/**
 * Where a process keeps its state, chosen once by {@code state.backend} in {@link #open}: the files
 * of one state directory (one process, one evaluation shard), or the shared PostgreSQL database of
 * a cluster (the evaluation split into shards run by whichever replica Quartz picks, every view
 * read from the database so each replica answers the same).
 *
 * <p>This is the only place that asks which backend the config chose: every store the process needs
 * (alert state, silences, history, notifications, digest ledger, the Quartz job store) is built
 * here, and what differs between the two is a behaviour of the backend, never a flag a caller
 * branches on. A reload cannot switch backends.
 */
public sealed interface StateBackend extends AutoCloseable permits FileBackend, DatabaseBackend {

  /** The daemon's backend. */
  static StateBackend open(SpecwatchConfig config, Clock clock) throws IOException {
    return open(config, clock, Database.defaultInstance());
  }

  /**
   * A command's backend ({@code silence}, {@code digest}): the same stores as the daemon's, named
   * {@code <host>-cli} in the database's sessions.
   */
  static StateBackend forCommand(SpecwatchConfig config, Clock clock) throws IOException {
    return open(config, clock, Database.defaultInstance() + "-cli");
  }

  private static StateBackend open(SpecwatchConfig config, Clock clock, String instance)
      throws IOException {
    Optional<SpecwatchConfig.Database> database = config.database();
    return database.isPresent()
        ? DatabaseBackend.open(database.get(), clock, instance)
        : new FileBackend(config.stateDir(), clock);
  }

  /** The files of {@code dir} (what {@code specwatch state import} reads). */
  static StateBackend files(Path dir, Clock clock) {
    return new FileBackend(dir, clock);
  }

  /**
   * The database of {@code config}, for {@code specwatch state import}.
   *
   * @throws IllegalArgumentException when the config keeps its state in files
   */
  static StateBackend database(SpecwatchConfig config, Clock clock) throws IOException {
    SpecwatchConfig.Database settings =
        config
            .database()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "the config's state is backend: file; import needs backend: postgres"));
    return DatabaseBackend.open(settings, clock, Database.defaultInstance() + "-import");
  }

  /** This process's name among the replicas; empty for files. */
  String instance();

  /** What the start-up line adds: the replica and its shard count; empty for files. */
  String describe();

  /** The evaluation shards: 1 for files, {@code state.shards} for the database. */
  int shards();

  /**
   * Whether a process that has not evaluated yet is ready: a replica of a cluster is, while it
   * reaches the database (it may run no shard at all); a single process is not.
   */
  boolean readyBeforeFirstEvaluation();

  /**
   * Whether the store is worth reading now: false while the database is known to be unreachable, so
   * views answer at once from memory (the delivery workers probe it meanwhile).
   */
  boolean reachable();

  StateHealth health();

  /** The notification stores (opened once, shared by the services of successive configs). */
  NotificationStores notifications() throws IOException;

  Silences silences();

  History history();

  /** The alert state of one evaluation shard. */
  StateStore alertState(int shard);

  DigestLedger digestLedger();

  /**
   * The Quartz scheduler (not started) with {@code threads} workers: in memory for files, the
   * clustered JDBC job store for the database.
   */
  Scheduler scheduler(int threads) throws SchedulerException;

  /**
   * After a shard's evaluation: saved for the other replicas' views and its run recorded (nothing
   * to share for files).
   */
  void evaluated(int shard, String job, Evaluation evaluation, Instant started, Instant finished);

  /** The latest evaluation of every shard, wherever it ran; {@code local} when not shared. */
  Optional<Evaluation> evaluation(Supplier<Optional<Evaluation>> local);

  /** Every shard's alert state; {@code local} when not shared or not reachable. */
  AlertState alertState(Supplier<AlertState> local);

  /** What {@code /api/v1/cluster} shows; empty for files. */
  Optional<ClusterView> view() throws IOException;

  /** Shards at or beyond {@code first} with a saved alert state (a shard count lowered). */
  List<Integer> shardsFrom(int first) throws IOException;

  /** Deletes a retired shard's state and evaluation. */
  void retire(int shard) throws IOException;

  @Override
  void close();
}
