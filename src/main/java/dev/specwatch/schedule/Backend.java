package dev.specwatch.schedule;

import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertService;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.FileStateStore;
import dev.specwatch.alerting.History;
import dev.specwatch.alerting.Learner;
import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.alerting.Silences;
import dev.specwatch.alerting.StateStore;
import dev.specwatch.alerting.TransitionHistory;
import dev.specwatch.alerting.TransitionSink;
import dev.specwatch.digest.DigestService;
import dev.specwatch.ha.Cluster;
import dev.specwatch.ha.ClusterView;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.NotificationStores;
import dev.specwatch.notify.Outbox;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.IntConsumer;
import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the daemon keeps its state, chosen at start by {@code state.backend}: the files of one
 * state directory (one process, one evaluation job), or the shared PostgreSQL database of a cluster
 * (the evaluation split into shards run by whichever replica Quartz picks, every view read from the
 * database so each replica answers the same). A reload cannot switch backends.
 */
final class Backend implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(Backend.class);

  private final Path stateDir;
  private final Cluster cluster;
  private final StateHealth health;
  private final NotificationStores stores;
  private final Silences silences;
  private final History history;
  private final Clock clock;

  /** The last evaluation of each shard this process ran. */
  private final ConcurrentMap<Integer, Evaluation> local = new ConcurrentHashMap<>();

  private Backend(
      Path stateDir,
      Cluster cluster,
      StateHealth health,
      NotificationStores stores,
      Silences silences,
      History history,
      Clock clock) {
    this.stateDir = stateDir;
    this.cluster = cluster;
    this.health = health;
    this.stores = stores;
    this.silences = silences;
    this.history = history;
    this.clock = clock;
  }

  static Backend open(SpecwatchConfig config, Clock clock) throws IOException {
    if (config.clustered()) {
      Cluster c = Cluster.open(config.database().get(), clock);
      return new Backend(
          null, c, c.health(), c.notificationStores(), c.silences(), c.history(), clock);
    }
    Path dir = config.stateDir();
    StateHealth health = new StateHealth(dir);
    return new Backend(
        dir,
        null,
        health,
        NotificationStores.open(dir, health, clock),
        new SilenceStore(dir, health),
        new TransitionHistory(dir),
        clock);
  }

  boolean clustered() {
    return cluster != null;
  }

  String instance() {
    return cluster == null ? "" : cluster.instance();
  }

  int shards() {
    return cluster == null ? 1 : cluster.shards();
  }

  /** Whether {@code recipe} is evaluated by {@code shard}: by a hash of its name. */
  boolean owns(int shard, String recipe) {
    return Cluster.shardOf(recipe, shards()) == shard;
  }

  /** The recipes of one shard. */
  List<Policy> policies(List<Policy> all, int shard) {
    return shards() == 1 ? all : all.stream().filter(p -> owns(shard, p.recipe())).toList();
  }

  /**
   * Whether an alert belongs to the shard: its recipe's, and specwatch's own alerts to shard 0
   * (which alone raises them).
   */
  boolean ownsAlert(int shard, AlertKey alert) {
    return alert.shard(shards()) == shard;
  }

  StateHealth health() {
    return health;
  }

  NotificationStores stores() {
    return stores;
  }

  Silences silences() {
    return silences;
  }

  History history() {
    return history;
  }

  /** One alert service per shard of {@code config}'s recipes, all delivering to {@code sink}. */
  List<AlertService> alertServices(
      SpecwatchConfig config, PrometheusClient prometheus, TransitionSink sink) throws IOException {
    List<AlertService> shards = new ArrayList<>();
    for (int i = 0; i < shards(); i++) {
      shards.add(service(config, prometheus, sink, i, new Learner(prometheus)));
    }
    return List.copyOf(shards);
  }

  private AlertService service(
      SpecwatchConfig config,
      PrometheusClient prometheus,
      TransitionSink sink,
      int shard,
      Learner learner)
      throws IOException {
    return AlertService.builder(
            new Evaluator(
                prometheus,
                clock,
                new dev.specwatch.signals.SpeedupReadings(prometheus, config.recipes())),
            new AlertEngine(config.alerting(), shard == 0),
            clock)
        .learner(learner)
        .store(state(shard))
        .silences(silences)
        .history(history)
        .sink(sink)
        .health(health)
        .build();
  }

  /**
   * Retires the alert state of shards beyond {@code state.shards} (the count was lowered): one last
   * cycle with no recipes resolves what fired there (the recipes' new shards fire again if they
   * still fail), then the row is deleted. Replicas starting together are safe: the state's
   * compare-and-set lets one of them do it.
   */
  void retireShards(SpecwatchConfig config, PrometheusClient prometheus, TransitionSink sink)
      throws IOException {
    if (cluster == null) {
      return;
    }
    for (int shard : cluster.shardsFrom(shards())) {
      AlertService last = service(config, prometheus, sink, shard, null);
      AlertService.Cycle c =
          last.runOnce(List.of(), config.evaluation().window(), config.evaluation().interval());
      if (last.state().queued().isEmpty()) {
        cluster.retire(shard);
        logger.info(
            "evaluation shard {} retired (state.shards is {}): {} alert(s) resolved",
            shard,
            shards(),
            c.transitions().size());
      }
    }
  }

  /** The alert state of one shard. */
  StateStore state(int shard) {
    return cluster == null ? new FileStateStore(stateDir, clock, health) : cluster.state(shard);
  }

  /** The digest service, reading and recording in this backend. */
  DigestService digest(SpecwatchConfig config, PrometheusClient prometheus) {
    DigestService service =
        new DigestService(config, prometheus, clock, DigestService.defaultRetry());
    return cluster == null ? service : service.withStores(history, cluster.digestLedger());
  }

  Schedule schedule(IntConsumer evaluateShard, Duration interval) throws SchedulerException {
    if (cluster == null) {
      return Schedule.start(() -> evaluateShard.accept(0), interval);
    }
    return Schedule.clustered(
        cluster.scheduler(Math.min(8, shards() + 2)), evaluateShard, shards(), interval);
  }

  /** After a shard's evaluation: saved for the other replicas' views, its run recorded. */
  void evaluated(int shard, Evaluation e, Instant started) {
    local.put(shard, e);
    if (cluster != null) {
      try {
        cluster.evaluated(shard, e);
      } catch (IOException ex) {
        logger.debug(
            "shard {}'s evaluation not shared (the replica is not ready until the database is"
                + " back): {}",
            shard,
            ex.getMessage());
      }
      cluster.ran(Schedule.job(shard).getName(), started, clock.instant());
    }
  }

  /**
   * What this process evaluated lately, all its shards as one: those evaluated within {@code fresh}
   * of the newest (a shard another replica took over since is left out).
   */
  Optional<Evaluation> localEvaluation(Duration fresh) {
    Optional<Instant> newest =
        local.values().stream().map(Evaluation::evaluatedAt).max(Instant::compareTo);
    return Cluster.mergeEvaluations(
        local.values().stream()
            .filter(e -> !e.evaluatedAt().plus(fresh).isBefore(newest.orElseThrow()))
            .toList());
  }

  /** The alert state of the shards this process holds, as one. */
  AlertState localAlertState(List<AlertService> services) {
    return services.size() == 1
        ? services.get(0).state()
        : Cluster.mergeStates(services.stream().map(AlertService::state).toList());
  }

  /**
   * Whether the database is known to be unreachable: views then answer at once from what this
   * replica holds instead of waiting for a connection (the delivery workers probe it meanwhile).
   */
  private boolean databaseDown() {
    return cluster != null && health.problem().isPresent();
  }

  /** The latest evaluation of every shard, wherever it ran. */
  Optional<Evaluation> evaluation() {
    if (cluster == null || databaseDown()) {
      return localEvaluation(Duration.ofDays(1));
    }
    try {
      return cluster.evaluation();
    } catch (IOException e) {
      return localEvaluation(Duration.ofDays(1));
    }
  }

  /** Every shard's alert state; {@code local} in file mode. */
  AlertState alertState(List<AlertService> services) {
    if (cluster != null && !databaseDown()) {
      try {
        return cluster.alertState();
      } catch (IOException e) {
        logger.debug("alert state unreadable, serving this replica's: {}", e.getMessage());
      }
    }
    return localAlertState(services);
  }

  private volatile int lastOutboxDepth;

  /**
   * Notifications waiting for delivery; while the store cannot be read (the database is down) the
   * last count read, so {@code /metrics} and {@code /api/v1/status} still answer.
   */
  /** The outbox depth the last evaluation cycle read: what /metrics serves, from memory. */
  int lastOutboxDepth() {
    return lastOutboxDepth;
  }

  /** Reads the outbox depth (in the evaluation cycle, never in an HTTP request). */
  int outboxDepth(Outbox outbox) {
    if (databaseDown()) {
      return lastOutboxDepth;
    }
    try {
      lastOutboxDepth = outbox.pending().size();
    } catch (IOException e) {
      logger.debug("outbox unreadable, serving the last depth read: {}", e.getMessage());
    }
    return lastOutboxDepth;
  }

  Optional<ClusterView> view() throws IOException {
    return cluster == null ? Optional.empty() : Optional.of(cluster.view());
  }

  @Override
  public void close() {
    if (cluster != null) {
      cluster.close();
    }
  }
}
