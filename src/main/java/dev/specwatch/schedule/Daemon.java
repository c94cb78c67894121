package dev.specwatch.schedule;

import dev.specwatch.alerting.AlertService;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Transition;
import dev.specwatch.backend.StateBackend;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Durations;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.NotificationService;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.server.SpecwatchMetrics;
import dev.specwatch.server.StatusServer;
import dev.specwatch.server.StatusViews;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problem;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code specwatch run}: wires the evaluator, alert engine, notifications, digest and status server
 * from one config, runs them on the {@link Schedule}, and reloads on SIGHUP or {@code POST
 * /-/reload} (an invalid config is rejected and the running one kept).
 */
public final class Daemon
    implements AutoCloseable, StatusServer.Source, dev.specwatch.notify.SlackActions.Silencer {
  private static final Logger logger = LoggerFactory.getLogger(Daemon.class);

  private final Path configPath;
  private final ConfigLoader loader;
  private final Clock clock;
  private final SpecwatchMetrics metrics = new SpecwatchMetrics();
  private final DatasourceLog datasourceLog = new DatasourceLog();
  private final NoDataLog noDataLog = new NoDataLog();
  private final Sparklines sparklines = new Sparklines();
  private final RecipeHistoryCache histories = new RecipeHistoryCache();

  /** Held during an evaluation and while the wiring is swapped. */
  private final ReentrantLock cycle = new ReentrantLock();

  private volatile Wiring wiring;
  private volatile Evaluation last;
  private volatile boolean ready;
  private static final String NO_EVALUATION = "no evaluation yet";
  private volatile String notReady = NO_EVALUATION;
  private Schedule schedule;
  private StatusServer server;

  /** Fixed at start: a reload cannot move the state or switch backends (its stores stay). */
  private StateBackend state;

  private Shards shards;

  /** Everything built from one config. */
  record Wiring(
      SpecwatchConfig config,
      PrometheusClient prometheus,
      List<AlertService> shards,
      NotificationService notifications) {}

  public Daemon(Path configPath, ConfigLoader loader, Clock clock) {
    this.configPath = configPath;
    this.loader = loader;
    this.clock = clock;
  }

  /**
   * Loads the config and starts everything.
   *
   * @throws InvalidInputException for an invalid config
   * @throws IOException when the state directory or the listen address cannot be used
   */
  public void start() throws IOException, SchedulerException {
    SpecwatchConfig config = loader.load(configPath);
    state = StateBackend.open(config, clock);
    shards = new Shards(state, clock);
    wiring = wire(config);
    shards.retireShards(config, wiring.prometheus(), wiring.notifications().sink());
    wiring.notifications().start();
    server =
        StatusServer.start(
            config.server().listen().socketAddress(), config.server().bearerToken(), this);
    schedule = shards.schedule(this::evaluate, config.evaluation().interval());
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

  private Wiring wire(SpecwatchConfig config) throws IOException {
    PrometheusClient prometheus = new PrometheusClient(config.prometheus());
    NotificationService notifications =
        new NotificationService(config, state.notifications(), clock, metrics, this);
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

  /** One evaluation cycle of one shard (of all recipes without a cluster); run by the schedule. */
  void evaluate(int shard) {
    cycle.lock();
    try {
      Wiring w = wiring;
      if (shard >= w.shards().size()) {
        return; // a job of a larger shard count, deleted at start by this replica's schedule
      }
      java.time.Instant started = clock.instant();
      long start = System.nanoTime();
      AlertService alerts = w.shards().get(shard);
      AlertService.Cycle c =
          alerts.runOnce(
              shards.policies(w.config().recipes(), shard),
              w.config().evaluation().window(),
              w.config().evaluation().interval());
      w.notifications().afterCycle(alerts.state(), alert -> shards.ownsAlert(shard, alert));
      shards.outboxDepth(w.notifications().outbox());
      double seconds = (System.nanoTime() - start) / 1e9;
      shards.evaluated(shard, c.evaluation(), started);
      // What this process evaluated lately, every shard it ran as one.
      Evaluation mine =
          shards.localEvaluation(w.config().evaluation().interval().multipliedBy(3)).orElseThrow();
      last = mine;
      metrics.evaluated(mine, shards.localAlertState(w.shards()), seconds, clock.instant());
      datasourceLog.report(mine);
      noDataLog.report(
          shards.policies(w.config().recipes(), shard), c.evaluation(), w.prometheus());
      // Ready while evaluations succeed: a datasource outage makes the daemon not ready (its
      // alerts are frozen), and it is ready again with the first evaluation that succeeds.
      ready = !mine.anyDatasourceError();
      notReady =
          mine.recipes().stream()
              .flatMap(r -> r.error().stream())
              .findFirst()
              .map(e -> "datasource: " + e)
              .orElse(null);
      logger.debug(
          "evaluated {} recipe(s) with {} queries in {} ms: {} transition(s)",
          c.evaluation().recipes().size(),
          c.evaluation().queries(),
          Math.round(seconds * 1000),
          c.transitions().size());
    } finally {
      cycle.unlock();
    }
  }

  /**
   * Ready while evaluations succeed and the state directory can be written. {@code /healthz} stays
   * 200 either way: a restart fixes neither a datasource nor a disk, and a liveness failure would
   * only add a restart loop.
   */
  @Override
  public boolean ready() {
    // A replica of a cluster is ready while it reaches the database: it may run no shard yet.
    @SuppressWarnings("ReferenceEquality") // NO_EVALUATION is a sentinel instance
    boolean waiting = notReady == NO_EVALUATION;
    return (ready || (state.readyBeforeFirstEvaluation() && waiting))
        && state.health().readiness().isEmpty();
  }

  @Override
  public String notReadyReason() {
    Optional<String> problem = state.health().readiness();
    if (problem.isPresent()) {
      return problem.get();
    }
    String reason = notReady;
    return reason == null ? "no successful evaluation yet" : reason;
  }

  @Override
  public Optional<String> noDataHint(String recipe) {
    return noDataLog.hint(recipe);
  }

  @Override
  public List<dev.specwatch.model.Policy> policies() {
    return wiring.config().recipes();
  }

  @Override
  public List<Silence> silences() throws IOException {
    return state.silences().load();
  }

  @Override
  public Silence addSilence(
      String recipe, Optional<String> rule, Duration duration, String comment, String author)
      throws IOException {
    return SilenceActions.add(
        state.silences(), policies(), clock, recipe, rule, duration, comment, author);
  }

  @Override
  public boolean expireSilence(String id) throws IOException {
    return SilenceActions.expire(state.silences(), clock, id);
  }

  @Override
  public List<Transition> history(java.time.Instant from) throws IOException {
    return state.history().between(from, clock.instant().plusSeconds(1));
  }

  @Override
  public List<Double> sparkline(String recipe) {
    return sparklines.get(recipe, wiring, lastEvaluation().orElse(null));
  }

  @Override
  public dev.specwatch.server.RecipeHistory recipeHistory(String recipe, Duration span) {
    return histories.get(recipe, span, wiring, clock.instant());
  }

  @Override
  public Optional<java.net.URI> grafana() {
    return wiring.config().grafanaUrl();
  }

  @Override
  public StatusViews.Config config() {
    return StatusViews.config(
        wiring.config(), Daemon.class.getPackage().getImplementationVersion());
  }

  @Override
  public StatusViews.Status status() throws IOException {
    Evaluation e = lastEvaluation().orElse(null);
    return new StatusViews.Status(
        ready(),
        ready() ? null : notReadyReason(),
        StatusViews.stateDir(state.health()),
        e == null ? null : e.evaluatedAt().toString(),
        shards.lastOutboxDepth(),
        alertState().queued().size(),
        config(),
        metrics.notifierHealth());
  }

  @Override
  public Optional<Evaluation> lastEvaluation() {
    return shards.evaluation();
  }

  @Override
  public AlertState alertState() {
    return shards.alertState(wiring.shards());
  }

  @Override
  public Optional<dev.specwatch.ha.ClusterView> cluster() throws IOException {
    return state.view();
  }

  /** This replica's name in the cluster; empty without one. */
  String instance() {
    return state.instance();
  }

  @Override
  public String metrics() throws IOException {
    // From memory: a scrape never waits on the state store (it is read in the cycle).
    return metrics.scrape(shards.lastOutboxDepth(), state.health());
  }

  /** Reloads the config (SIGHUP, POST /-/reload); returns the problems, empty when applied. */
  @Override
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
        fresh = wire(next);
      } catch (IOException e) {
        logger.error("reload failed, still running the previous config: {}", e.getMessage());
        return List.of("reload failed: " + e.getMessage());
      }
      // The new config is live from here; a delivery still in flight keeps its claim (the new
      // workers wait for it). What cannot be applied now is reported, not hidden.
      old.notifications().stop(Duration.ofSeconds(5));
      fresh.notifications().start();
      wiring = fresh;
      List<String> notApplied =
          Reloads.reschedule(
              () -> schedule.interval(next.evaluation().interval()), () -> scheduleDigest(fresh));
      Reloads.needRestart(old.config(), next, state.health().location()).forEach(logger::warn);
      return Reloads.report(next, notApplied);
    } finally {
      cycle.unlock();
    }
  }

  /**
   * Stops within {@code bound}: no new evaluation starts, a running one may finish (its state is
   * saved as part of the cycle) or is abandoned, the outbox worker stops. Restores the interrupt
   * flag if interrupted.
   */
  public void stop(Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    try {
      if (schedule != null) {
        schedule.pause();
      }
      boolean idle = cycle.tryLock(bound.toMillis(), TimeUnit.MILLISECONDS);
      if (idle) {
        cycle.unlock();
      } else {
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
