package dev.specwatch.schedule;

import dev.specwatch.alerting.AlertService;
import dev.specwatch.backend.StateBackend;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Durations;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.NotificationService;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.server.SpecwatchMetrics;
import dev.specwatch.server.StatusServer;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problem;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code specwatch run}: wires the evaluator, alert engine, notifications, digest and status server
 * from one config, runs them on the {@link Schedule}, and reloads on SIGHUP or {@code POST
 * /-/reload} (an invalid config is rejected and the running one kept). Wiring and lifecycle only:
 * what the status server shows is {@link DaemonViews}.
 */
public final class Daemon implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(Daemon.class);

  private final Path configPath;
  private final ConfigLoader loader;
  private final Clock clock;
  private final SpecwatchMetrics metrics = new SpecwatchMetrics();
  private final DatasourceLog datasourceLog = new DatasourceLog();
  private final NoDataLog noDataLog = new NoDataLog();

  /** Held during an evaluation cycle and while a reload swaps the wiring. */
  private final ReentrantLock cycle = new ReentrantLock();

  /** Read-held by every evaluation job from start to end; stop takes it to wait for them. */
  private final ReentrantReadWriteLock running = new ReentrantReadWriteLock();

  private volatile Wiring wiring;
  private volatile Evaluation last;
  private Readiness readiness;
  private DaemonViews views;
  private Schedule schedule;
  private StatusServer server;

  /** Fixed at start: a reload cannot move the state or switch backends (its stores stay). */
  private StateBackend state;

  private Shards shards;

  private Liveness liveness;
  private Watchdog watchdog;

  /** systemd's notification socket ({@code Type=notify}); empty outside systemd. */
  private final Optional<SystemdNotify> systemd;

  private final Map<String, String> environment;
  private final AtomicBoolean notifiedReady = new AtomicBoolean();

  /** Everything built from one config. */
  record Wiring(
      SpecwatchConfig config,
      PrometheusClient prometheus,
      List<AlertService> shards,
      NotificationService notifications) {}

  public Daemon(Path configPath, ConfigLoader loader, Clock clock) {
    this(configPath, loader, clock, System.getenv());
  }

  /**
   * @param environment where systemd's {@code NOTIFY_SOCKET} and {@code WATCHDOG_USEC} are read
   */
  Daemon(Path configPath, ConfigLoader loader, Clock clock, Map<String, String> environment) {
    this.configPath = configPath;
    this.loader = loader;
    this.clock = clock;
    this.environment = environment;
    this.systemd = SystemdNotify.fromEnvironment(environment);
  }

  /**
   * Loads the config and starts everything.
   *
   * @throws InvalidInputException for an invalid config
   * @throws IOException when the state directory or the listen address cannot be used
   */
  public void start() throws IOException, SchedulerException {
    SpecwatchConfig config = loader.load(configPath);
    try {
      startWith(config);
    } catch (IOException | SchedulerException | RuntimeException e) {
      // Whatever started before the failure (state, delivery workers, the HTTP server, the
      // schedule) stops again, in reverse: a failed start leaves nothing running.
      stop(Duration.ofSeconds(5));
      throw e;
    }
  }

  /** Opens and starts everything, in order; {@link #stop} undoes it in reverse. */
  private void startWith(SpecwatchConfig config) throws IOException, SchedulerException {
    state = StateBackend.open(config, clock);
    shards = new Shards(state, clock);
    liveness =
        new Liveness(System::nanoTime, config.evaluation().interval(), state.instance().isEmpty());
    readiness = new Readiness(state, liveness);
    views =
        new DaemonViews(() -> wiring, this::reload, shards, readiness, metrics, noDataLog, clock);
    wiring = wire(config, null);
    shards.retireShards(config, wiring.prometheus(), wiring.notifications().sink());
    wiring.notifications().start();
    server = StatusServer.start(config.server().listen().socketAddress(), config.server(), views);
    schedule = shards.schedule(this::evaluate, config.evaluation().interval());
    watchdog =
        Watchdog.start(
            liveness,
            schedule,
            systemd,
            SystemdNotify.watchdog(environment, ProcessHandle.current().pid()));
    scheduleDigest(wiring);
    config.server().exposureWarning().ifPresent(w -> logger.warn("{}", w));
    logger.info(
        "specwatch running: {} recipe(s) from {}, evaluating every {} over {}; state in {}{};"
            + " status on http://{}/ (port {})",
        config.recipes().size(),
        config.policiesDir(),
        Durations.format(config.evaluation().interval()),
        Durations.format(config.evaluation().window()),
        state.health().location(),
        state.describe(),
        config.server().listen(),
        server.port());
  }

  public int port() {
    return server.port();
  }

  /**
   * @param previous the running wiring, whose unchanged notifiers the new one keeps; or null
   */
  private Wiring wire(SpecwatchConfig config, Wiring previous) throws IOException {
    PrometheusClient prometheus = new PrometheusClient(config.prometheus());
    NotificationService notifications =
        new NotificationService(
            config,
            state.notifications(),
            clock,
            metrics,
            views,
            previous == null ? null : previous.notifications());
    metrics.notifiers(notifications.notifiers().keySet());
    List<AlertService> services = shards.alertServices(config, prometheus, notifications.sink());
    return new Wiring(config, prometheus, services, notifications);
  }

  /** The digest job, with the fleet summary posted to Slack when digest.slack_channel is set. */
  private void scheduleDigest(Wiring w) throws SchedulerException {
    schedule.digest(
        w.config().digest().orElse(null),
        DigestWiring.service(shards, w.config(), w.prometheus(), w.notifications()));
  }

  /** Every shard's evaluation cycle, one after another (tests, benchmarks). */
  void evaluate() {
    for (int i = 0; i < shards.count(); i++) {
      evaluate(i);
    }
  }

  /**
   * One evaluation cycle of one shard (of all recipes without a cluster); run by the schedule. The
   * cycle itself (queries, the alert engine, the state saved, transitions queued) holds {@link
   * #cycle}, the lock a reload's swap waits for; what follows it (sharing the evaluation, repeats
   * and re-sends, the outbox depth, no-data hints, the metrics) runs after it, so a reload never
   * waits on a receiver, the outbox or the database. Stop waits for both, within its bound.
   */
  void evaluate(int shard) {
    running.readLock().lock();
    liveness.started(shard);
    try {
      Wiring w;
      AlertService alerts;
      AlertService.Cycle c;
      Instant started = clock.instant();
      long start = System.nanoTime();
      cycle.lock();
      try {
        w = wiring;
        if (shard >= w.shards().size()) {
          return; // a job of a larger shard count, deleted at start by this replica's schedule
        }
        alerts = w.shards().get(shard);
        c =
            alerts.runOnce(
                shards.policies(w.config().recipes(), shard),
                w.config().evaluation().window(),
                w.config().evaluation().interval());
      } finally {
        cycle.unlock();
      }
      // Shared before the notifications go out: the views never show an alert of a cycle whose
      // evaluation they do not have yet, nor wait on a slow receiver for it.
      shards.evaluated(shard, c.evaluation(), started);
      w.notifications().afterCycle(alerts.state(), alert -> shards.ownsAlert(shard, alert));
      shards.outboxDepth(w.notifications().outbox());
      double seconds = (System.nanoTime() - start) / 1e9;
      // What this process evaluated lately, every shard it ran as one.
      Evaluation mine =
          shards.localEvaluation(w.config().evaluation().interval().multipliedBy(3)).orElseThrow();
      last = mine;
      readiness.evaluated(mine);
      metrics.evaluated(mine, shards.localAlertState(w.shards()), seconds, clock.instant());
      datasourceLog.report(mine);
      noDataLog.report(
          shards.policies(w.config().recipes(), shard), c.evaluation(), w.prometheus());
      logger.debug(
          "evaluated {} recipe(s) with {} queries in {} ms: {} transition(s)",
          c.evaluation().recipes().size(),
          c.evaluation().queries(),
          Math.round(seconds * 1000),
          c.transitions().size());
    } finally {
      liveness.finished(shard);
      running.readLock().unlock();
      if (systemd.isPresent() && notifiedReady.compareAndSet(false, true)) {
        systemd
            .get()
            .send(
                "READY=1\nSTATUS=evaluating every "
                    + Durations.format(wiring.config().evaluation().interval()));
      }
    }
  }

  /** Whether {@code /readyz} answers 200 (see {@link Readiness}). */
  public boolean ready() {
    return readiness.ready();
  }

  /** This replica's name in the cluster; empty without one. */
  String instance() {
    return state.instance();
  }

  /** Reloads the config (SIGHUP, POST /-/reload); returns the problems, empty when applied. */
  public List<String> reload() {
    SpecwatchConfig next;
    try {
      next = loader.load(configPath);
    } catch (InvalidInputException e) {
      List<String> problems = e.problems().stream().map(Problem::toString).toList();
      logger.error(
          "reload rejected, still running the previous config; {} problem(s):\n  {}",
          problems.size(),
          String.join("\n  ", problems));
      return problems;
    }
    cycle.lock();
    try {
      Wiring old = wiring;
      Wiring fresh;
      try {
        fresh = wire(next, old);
      } catch (IOException e) {
        logger.error("reload failed, still running the previous config: {}", e.getMessage());
        return List.of("reload failed: " + e.getMessage());
      }
      // The new config is live from here; a delivery still in flight keeps its claim (the new
      // workers wait for it). What cannot be applied now is reported, not hidden.
      fresh.notifications().takeOver(); // the unchanged notifiers keep running
      old.notifications().stop(Duration.ofSeconds(5));
      fresh.notifications().start();
      if (!fresh.notifications().kept().isEmpty()) {
        logger.info("reload: notifiers unchanged, kept running: {}", fresh.notifications().kept());
      }
      wiring = fresh;
      liveness.interval(next.evaluation().interval());
      List<String> notApplied =
          Reloads.reschedule(
              () -> schedule.interval(next.evaluation().interval()), () -> scheduleDigest(fresh));
      Reloads.needRestart(old.config(), next, state.health().location()).forEach(logger::warn);
      return Reloads.report(next, notApplied);
    } finally {
      cycle.unlock();
    }
  }

  /** How long a running evaluation may go on at stop before its queries are cancelled. */
  static final Duration EVALUATION_GRACE = Duration.ofSeconds(1);

  /**
   * Stops within {@code bound} (a container runtime's 10 s grace, systemd's TimeoutStopSec): no new
   * evaluation starts; a running one has {@link #EVALUATION_GRACE} to finish, then its datasource
   * queries are cancelled and it ends without saving or notifying anything (the state of the
   * previous evaluation stands, so nothing is lost or sent twice); the outbox workers stop with
   * what is left of the bound (an intent not delivered stays in the outbox for the next start).
   * Restores the interrupt flag if interrupted.
   */
  public void stop(Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    systemd.ifPresent(s -> s.send("STOPPING=1"));
    if (watchdog != null) {
      watchdog.close();
    }
    try {
      if (schedule != null) {
        schedule.pause();
      }
      boolean idle =
          running
              .writeLock()
              .tryLock(Math.min(bound.toNanos(), EVALUATION_GRACE.toNanos()), TimeUnit.NANOSECONDS);
      if (!idle && wiring != null) {
        logger.info("an evaluation is still running; cancelling its datasource queries");
        wiring.prometheus().abandon();
        idle =
            running
                .writeLock()
                .tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
      if (idle) {
        // A reload in progress finishes its swap first.
        idle = cycle.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (idle) {
          cycle.unlock();
        }
        running.writeLock().unlock();
      }
      if (!idle) {
        logger.warn(
            "an evaluation was still running after {}; abandoning it (state of the"
                + " previous evaluation is saved)",
            Durations.format(bound));
      }
      if (schedule != null) {
        schedule.close();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long left = Math.max(0, deadline - System.nanoTime());
    if (wiring != null) {
      wiring
          .notifications()
          .stop(Duration.ofNanos(Math.min(left, Duration.ofSeconds(5).toNanos())));
    }
    if (server != null) {
      server.close();
    }
    if (state != null) {
      state.close();
    }
    logger.info("specwatch stopped");
  }

  @Override
  public void close() {
    stop(Durations.parse(SpecwatchConfig.DEFAULT_SHUTDOWN_TIMEOUT).orElseThrow());
  }

  /** The snapshot of one recipe at the last evaluation, for tests. */
  Optional<RecipeSnapshot> snapshot(String recipe) {
    Evaluation e = last;
    return e == null
        ? Optional.empty()
        : e.recipes().stream().filter(r -> r.recipe().equals(recipe)).findFirst();
  }
}
