package dev.specwatch.backend;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.History;
import dev.specwatch.alerting.Silences;
import dev.specwatch.alerting.StateStore;
import dev.specwatch.digest.DigestLedger;
import dev.specwatch.ha.Cluster;
import dev.specwatch.ha.ClusterView;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.NotificationStores;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code state.backend: postgres}: the shared database of a cluster of replicas ({@link Cluster}
 * holds its stores), the evaluation split into {@code state.shards} shards.
 */
final class DatabaseBackend implements StateBackend {
  private static final Logger logger = LoggerFactory.getLogger(DatabaseBackend.class);

  private final Cluster cluster;
  private final Silences silences;
  private final History history;

  private DatabaseBackend(Cluster cluster) {
    this.cluster = cluster;
    this.silences = cluster.silences();
    this.history = cluster.history();
  }

  static DatabaseBackend open(SpecwatchConfig.Database settings, Clock clock, String instance)
      throws IOException {
    return new DatabaseBackend(Cluster.open(settings, clock, instance));
  }

  @Override
  public String instance() {
    return cluster.instance();
  }

  @Override
  public String describe() {
    return " (replica " + cluster.instance() + ", " + cluster.shards() + " evaluation shards)";
  }

  @Override
  public int shards() {
    return cluster.shards();
  }

  @Override
  public boolean readyBeforeFirstEvaluation() {
    return true;
  }

  @Override
  public boolean reachable() {
    return cluster.health().problem().isEmpty();
  }

  @Override
  public StateHealth health() {
    return cluster.health();
  }

  @Override
  public NotificationStores notifications() {
    return cluster.notificationStores();
  }

  @Override
  public Silences silences() {
    return silences;
  }

  @Override
  public History history() {
    return history;
  }

  @Override
  public StateStore alertState(int shard) {
    return cluster.state(shard);
  }

  @Override
  public DigestLedger digestLedger() {
    return DigestLedger.of(cluster.digestLedger());
  }

  @Override
  public Scheduler scheduler(int threads) throws SchedulerException {
    return cluster.scheduler(threads);
  }

  @Override
  public void evaluated(
      int shard, String job, Evaluation evaluation, Instant started, Instant finished) {
    try {
      cluster.evaluated(shard, evaluation);
    } catch (IOException e) {
      // Reported by the health (/readyz): the replica is not ready until the database is back.
      logger.debug("shard {}'s evaluation not shared: {}", shard, e.getMessage());
    }
    cluster.ran(job, started, finished);
  }

  @Override
  public Optional<Evaluation> evaluation(Supplier<Optional<Evaluation>> local) {
    if (!reachable()) {
      return local.get();
    }
    try {
      return cluster.evaluation();
    } catch (IOException e) {
      logger.debug("evaluations unreadable, serving this replica's: {}", e.getMessage());
      return local.get();
    }
  }

  @Override
  public AlertState alertState(Supplier<AlertState> local) {
    if (!reachable()) {
      return local.get();
    }
    try {
      return cluster.alertState();
    } catch (IOException e) {
      logger.debug("alert state unreadable, serving this replica's: {}", e.getMessage());
      return local.get();
    }
  }

  @Override
  public Optional<ClusterView> view() throws IOException {
    return Optional.of(cluster.view());
  }

  @Override
  public List<Integer> shardsFrom(int first) throws IOException {
    return cluster.shardsFrom(first);
  }

  @Override
  public void retire(int shard) throws IOException {
    cluster.retire(shard);
  }

  @Override
  public void close() {
    cluster.close();
  }
}
