package dev.specwatch.schedule;

import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertService;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Learner;
import dev.specwatch.alerting.TransitionSink;
import dev.specwatch.backend.StateBackend;
import dev.specwatch.digest.DigestService;
import dev.specwatch.ha.Cluster;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.Outbox;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.signals.SpeedupReadings;
import java.io.IOException;
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
 * The daemon's evaluation shards over its {@link StateBackend}: which recipes and alerts each shard
 * holds, one alert service per shard, and what this process evaluated lately. One shard for files;
 * {@code state.shards} of them, run by whichever replica Quartz picks, for the database.
 */
final class Shards {
  private static final Logger logger = LoggerFactory.getLogger(Shards.class);

  private final StateBackend backend;
  private final Clock clock;

  /** The last evaluation of each shard this process ran. */
  private final ConcurrentMap<Integer, Evaluation> local = new ConcurrentHashMap<>();

  private volatile int lastOutboxDepth;

  Shards(StateBackend backend, Clock clock) {
    this.backend = backend;
    this.clock = clock;
  }

  StateBackend backend() {
    return backend;
  }

  int count() {
    return backend.shards();
  }

  /** Whether {@code recipe} is evaluated by {@code shard}: by a hash of its name. */
  boolean owns(int shard, String recipe) {
    return AlertKey.shardOf(recipe, count()) == shard;
  }

  /** The recipes of one shard. */
  List<Policy> policies(List<Policy> all, int shard) {
    return count() == 1 ? all : all.stream().filter(p -> owns(shard, p.recipe())).toList();
  }

  /**
   * Whether an alert belongs to the shard: its recipe's, and specwatch's own alerts to shard 0
   * (which alone raises them).
   */
  boolean ownsAlert(int shard, AlertKey alert) {
    return alert.shard(count()) == shard;
  }

  /** One alert service per shard of {@code config}'s recipes, all delivering to {@code sink}. */
  List<AlertService> alertServices(
      SpecwatchConfig config, PrometheusClient prometheus, TransitionSink sink) throws IOException {
    List<AlertService> shards = new ArrayList<>();
    for (int i = 0; i < count(); i++) {
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
            new Evaluator(prometheus, clock, new SpeedupReadings(prometheus, config.recipes())),
            new AlertEngine(config.alerting(), shard == 0),
            clock)
        .learner(learner)
        .store(backend.alertState(shard))
        .silences(backend.silences())
        .history(backend.history())
        .sink(sink)
        .health(backend.health())
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
    for (int shard : backend.shardsFrom(count())) {
      AlertService last = service(config, prometheus, sink, shard, null);
      AlertService.Cycle c =
          last.runOnce(List.of(), config.evaluation().window(), config.evaluation().interval());
      if (last.state().queued().isEmpty()) {
        backend.retire(shard);
        logger.info(
            "evaluation shard {} retired (state.shards is {}): {} alert(s) resolved",
            shard,
            count(),
            c.transitions().size());
      }
    }
  }

  /** The digest service, reading and recording in this backend. */
  DigestService digest(SpecwatchConfig config, PrometheusClient prometheus) {
    return new DigestService(
        config,
        prometheus,
        clock,
        DigestService.defaultRetry(),
        new DigestService.Stores(backend.history(), backend.digestLedger()));
  }

  /**
   * Starts the schedule: one evaluation job per shard, on the backend's job store, with a thread
   * for each shard's job, one for the digest and one spare (a reload's reschedule or the watchdog's
   * evaluate-now while both run), at most 8.
   */
  Schedule schedule(IntConsumer evaluateShard, Duration interval) throws SchedulerException {
    return Schedule.start(
        backend.scheduler(Math.min(8, count() + 2)), evaluateShard, count(), interval);
  }

  /** After a shard's evaluation: kept for this process's views, shared through the backend. */
  void evaluated(int shard, Evaluation e, Instant started) {
    local.put(shard, e);
    backend.evaluated(shard, Schedule.job(shard).getName(), e, started, clock.instant());
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

  /** The latest evaluation of every shard, wherever it ran. */
  Optional<Evaluation> evaluation() {
    return backend.evaluation(() -> localEvaluation(Duration.ofDays(1)));
  }

  /** Every shard's alert state. */
  AlertState alertState(List<AlertService> services) {
    return backend.alertState(() -> localAlertState(services));
  }

  /** The outbox depth the last evaluation cycle read: what /metrics serves, from memory. */
  int lastOutboxDepth() {
    return lastOutboxDepth;
  }

  /**
   * Reads the outbox depth (in the evaluation cycle, never in an HTTP request); while the store
   * cannot be read the last count read, so {@code /metrics} and {@code /api/v1/status} still
   * answer.
   */
  int outboxDepth(Outbox outbox) {
    if (!backend.reachable()) {
      return lastOutboxDepth;
    }
    try {
      lastOutboxDepth = outbox.pending().size();
    } catch (IOException e) {
      // Reported by the store's health; /metrics keeps the last depth read.
      logger.debug("outbox unreadable, serving the last depth read: {}", e.getMessage());
    }
    return lastOutboxDepth;
  }
}
