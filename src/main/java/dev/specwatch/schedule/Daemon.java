package dev.specwatch.schedule;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.AlertService;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.FileStateStore;
import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.digest.DigestJob;
import dev.specwatch.digest.DigestService;
import dev.specwatch.model.Durations;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.DeliveryResult;
import dev.specwatch.notify.NotificationService;
import dev.specwatch.notify.SlackMessages;
import dev.specwatch.notify.SlackNotifier;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.server.SpecwatchMetrics;
import dev.specwatch.server.StatusServer;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.EvaluationJson;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problem;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TimeZone;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.quartz.CronScheduleBuilder;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.StdSchedulerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code specwatch run}: evaluates every recipe on a Quartz schedule, drives the alert engine and
 * the notification outbox, serves health, metrics and status, and reloads its config on SIGHUP or
 * {@code POST /-/reload} (an invalid config is rejected and the running one kept).
 */
public final class Daemon implements AutoCloseable, StatusServer.Source {
  private static final Logger logger = LoggerFactory.getLogger(Daemon.class);
  static final String CONTEXT_KEY = "specwatch.daemon";
  private static final JobKey JOB = JobKey.jobKey("evaluation", "specwatch");
  private static final TriggerKey TRIGGER = TriggerKey.triggerKey("evaluation", "specwatch");

  private final Path configPath;
  private final ConfigLoader loader;
  private final Clock clock;
  private final SpecwatchMetrics metrics = new SpecwatchMetrics();

  /** Held during an evaluation and while the wiring is swapped. */
  private final ReentrantLock cycle = new ReentrantLock();

  private volatile Wiring wiring;
  private volatile Evaluation last;
  private volatile boolean ready;
  private Scheduler scheduler;
  private StatusServer server;

  /** Everything built from one config. */
  private record Wiring(
      SpecwatchConfig config, AlertService alerts, NotificationService notifications) {}

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
    wiring = wire(config);
    wiring.notifications().start();
    server =
        StatusServer.start(
            config.server().listen().socketAddress(), config.server().bearerToken(), this);
    scheduler = scheduler();
    scheduler.getContext().put(CONTEXT_KEY, this);
    JobDetail job = JobBuilder.newJob(EvaluationJob.class).withIdentity(JOB).build();
    scheduler.scheduleJob(job, trigger(config.evaluation().interval()));
    scheduleDigest(config);
    scheduler.start();
    logger.info(
        "specwatch running: {} recipe(s) from {}, evaluating every {} over {}; status on"
            + " http://{}/ (port {})",
        config.policies().size(),
        config.policiesDir(),
        Durations.format(config.evaluation().interval()),
        Durations.format(config.evaluation().window()),
        config.server().listen(),
        server.port());
  }

  public int port() {
    return server.port();
  }

  private static Scheduler scheduler() throws SchedulerException {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", "specwatch");
    p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    p.setProperty("org.quartz.threadPool.threadCount", "2");
    p.setProperty("org.quartz.threadPool.threadNamePrefix", "specwatch-quartz");
    p.setProperty("org.quartz.threadPool.makeThreadsDaemons", "true");
    p.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
    // A run more than this late counts as missed and is skipped (see the trigger).
    p.setProperty("org.quartz.jobStore.misfireThreshold", "1000");
    return new StdSchedulerFactory(p).getScheduler();
  }

  private static final JobKey DIGEST_JOB = JobKey.jobKey("digest", "specwatch");

  /** The weekly digest's cron job, and a catch-up at start-up for a digest missed while down. */
  private void scheduleDigest(SpecwatchConfig config) throws SchedulerException {
    scheduler.deleteJob(DIGEST_JOB);
    scheduler.getContext().remove(DigestJob.CONTEXT_KEY);
    if (config.digest().isEmpty()) {
      return;
    }
    SpecwatchConfig.Digest d = config.digest().get();
    DigestService service =
        new DigestService(
            config, new PrometheusClient(config.prometheus()), clock, DigestService.defaultRetry());
    d.slackChannel()
        .ifPresent(
            channel ->
                wiring.notifications().notifiers().values().stream()
                    .filter(n -> n instanceof SlackNotifier)
                    .map(n -> (SlackNotifier) n)
                    .findFirst()
                    .ifPresentOrElse(
                        slack ->
                            service.withSlackSummary(
                                digest -> {
                                  var result =
                                      slack.post(
                                          channel,
                                          digest.subject(),
                                          SlackMessages.digestSummary(digest));
                                  if (!(result instanceof DeliveryResult.Delivered)) {
                                    logger.warn(
                                        "posting the digest summary to {} failed: {}",
                                        channel,
                                        result);
                                  }
                                }),
                        () ->
                            logger.warn(
                                "digest.slack_channel is set but no slack notifier is configured")));
    scheduler.getContext().put(DigestJob.CONTEXT_KEY, service);
    JobDetail job = JobBuilder.newJob(DigestJob.class).withIdentity(DIGEST_JOB).build();
    Trigger cron =
        TriggerBuilder.newTrigger()
            .forJob(DIGEST_JOB)
            .withSchedule(
                CronScheduleBuilder.cronSchedule(d.schedule())
                    .inTimeZone(TimeZone.getTimeZone(d.timeZone()))
                    // A fire missed while down is handled by the catch-up below, with its lateness
                    // bound.
                    .withMisfireHandlingInstructionDoNothing())
            .build();
    scheduler.scheduleJob(job, cron);
    Thread catchUp = new Thread(service::sendIfDue, "specwatch-digest-catch-up");
    catchUp.setDaemon(true);
    catchUp.start();
  }

  private static Trigger trigger(Duration interval) {
    return TriggerBuilder.newTrigger()
        .withIdentity(TRIGGER)
        .forJob(JOB)
        .startNow()
        .withSchedule(
            SimpleScheduleBuilder.simpleSchedule()
                .withIntervalInMilliseconds(interval.toMillis())
                .repeatForever()
                // Missed runs (a long evaluation, a paused VM) are skipped, never bunched.
                .withMisfireHandlingInstructionNextWithRemainingCount())
        .build();
  }

  private Wiring wire(SpecwatchConfig config) throws IOException {
    NotificationService notifications = new NotificationService(config, clock);
    AlertService alerts =
        new AlertService(
            new Evaluator(new PrometheusClient(config.prometheus()), clock),
            new AlertEngine(config.alerting()),
            new FileStateStore(config.stateDir(), clock),
            new SilenceStore(config.stateDir()),
            notifications.sink(),
            clock);
    return new Wiring(config, alerts, notifications);
  }

  /** One evaluation cycle; called by {@link EvaluationJob}. */
  void evaluate() {
    cycle.lock();
    try {
      Wiring w = wiring;
      long start = System.nanoTime();
      AlertService.Cycle c =
          w.alerts().runOnce(w.config().policies(), w.config().evaluation().window());
      w.notifications().afterCycle(w.alerts().state());
      double seconds = (System.nanoTime() - start) / 1e9;
      last = c.evaluation();
      record(c, seconds, w);
      reportDatasource(c.evaluation());
      if (!c.evaluation().anyDatasourceError()) {
        ready = true;
      }
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

  private String lastDatasourceError;

  /** Logs a datasource failure once when it starts or changes, and once when it ends. */
  private void reportDatasource(Evaluation e) {
    String error = e.recipes().stream().flatMap(r -> r.error().stream()).findFirst().orElse(null);
    if (error != null && !error.equals(lastDatasourceError)) {
      long affected = e.recipes().stream().filter(r -> r.error().isPresent()).count();
      logger.warn(
          "cannot evaluate {} recipe(s): {}; alert state is frozen until queries succeed"
              + " (datasource_unavailable fires after alerting.datasource_failure_for)",
          affected,
          error);
    } else if (error == null && lastDatasourceError != null) {
      logger.info("datasource reachable again; evaluating normally");
    }
    lastDatasourceError = error;
  }

  private void record(AlertService.Cycle c, double seconds, Wiring w) {
    Evaluation e = c.evaluation();
    metrics.evaluationDuration().observe(seconds);
    metrics.queries().inc(e.queries());
    boolean error = e.anyDatasourceError();
    metrics.evaluations().labelValues(error ? "datasource_error" : "ok").inc();
    if (!error) {
      metrics.lastSuccess().set(clock.instant().toEpochMilli() / 1000.0);
    }
    Map<RecipeState, Integer> states = new EnumMap<>(RecipeState.class);
    for (RecipeState s : RecipeState.values()) {
      states.put(s, 0);
    }
    e.recipes().forEach(r -> states.merge(r.state(), 1, Integer::sum));
    states.forEach((s, n) -> metrics.recipes().labelValues(s.key()).set(n));
    AlertState state = w.alerts().state();
    for (AlertPhase phase : AlertPhase.values()) {
      metrics
          .alerts()
          .labelValues(phase.name().toLowerCase())
          .set(state.alerts().values().stream().filter(a -> a.phase() == phase).count());
    }
    metrics.transitionsQueued().set(state.queued().size());
  }

  @Override
  public boolean ready() {
    return ready;
  }

  @Override
  public String metrics() throws IOException {
    Wiring w = wiring;
    metrics.notifications(w.notifications().worker().sent(), w.notifications().worker().failed());
    metrics.outboxDepth().set(w.notifications().outbox().pending().size());
    return metrics.scrape();
  }

  @Override
  public Optional<Map<String, Object>> recipes() {
    Evaluation e = last;
    return e == null ? Optional.empty() : Optional.of(EvaluationJson.of(e));
  }

  @Override
  public Map<String, Object> alerts() {
    AlertState state = wiring.alerts().state();
    List<Object> alerts = new ArrayList<>();
    for (ActiveAlert a : state.alerts().values()) {
      Map<String, Object> alert = new LinkedHashMap<>();
      alert.put("id", a.id());
      alert.put("recipe", a.recipe());
      alert.put("rule", a.rule());
      alert.put("position", a.position());
      alert.put("state", a.phase().name().toLowerCase());
      alert.put("value", a.value());
      alert.put("threshold", a.threshold());
      alert.put("severity", a.severity());
      alert.put("active_since", a.activeSince().toString());
      alert.put("firing_since", a.firingSince() == null ? null : a.firingSince().toString());
      alert.put("frozen_since", a.frozenSince() == null ? null : a.frozenSince().toString());
      alerts.add(alert);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("alerts", alerts);
    out.put("transitions_queued", state.queued().size());
    return out;
  }

  @Override
  public Map<String, Object> slos() {
    List<Object> slos = new ArrayList<>();
    Evaluation e = last;
    if (e != null) {
      for (RecipeSnapshot r : e.recipes()) {
        r.slo()
            .ifPresent(
                st -> {
                  Map<String, Object> m = new LinkedHashMap<>();
                  m.put("recipe", r.recipe());
                  m.putAll(EvaluationJson.slo(st));
                  slos.add(m);
                });
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("slos", slos);
    return out;
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
      Wiring fresh = wire(next);
      old.notifications().close();
      fresh.notifications().start();
      wiring = fresh;
      if (!next.evaluation().interval().equals(old.config().evaluation().interval())) {
        scheduler.rescheduleJob(TRIGGER, trigger(next.evaluation().interval()));
      }
      scheduleDigest(next);
      if (!next.server().listen().equals(old.config().server().listen())) {
        logger.warn(
            "server.listen changed to {}: takes effect after a restart", next.server().listen());
      }
      logger.info(
          "config reloaded: {} recipe(s); alerts of unchanged rules keep their state",
          next.policies().size());
      return List.of();
    } catch (IOException | SchedulerException e) {
      logger.error("reload failed, still running the previous config: {}", e.getMessage());
      return List.of("reload failed: " + e.getMessage());
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
      if (scheduler != null) {
        scheduler.standby();
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
      if (scheduler != null) {
        scheduler.shutdown(false);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SchedulerException e) {
      logger.warn("stopping the scheduler: {}", e.getMessage());
    }
    long left = Math.max(0, deadline - System.nanoTime());
    if (wiring != null) {
      wiring
          .notifications()
          .worker()
          .stop(Duration.ofNanos(Math.min(left, Duration.ofSeconds(5).toNanos())));
    }
    if (server != null) {
      server.close();
    }
    logger.info("specwatch stopped");
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(30));
  }

  /** The snapshot of one recipe at the last evaluation, for tests and the status API. */
  Optional<RecipeSnapshot> snapshot(String recipe) {
    Evaluation e = last;
    return e == null
        ? Optional.empty()
        : e.recipes().stream().filter(r -> r.recipe().equals(recipe)).findFirst();
  }
}
