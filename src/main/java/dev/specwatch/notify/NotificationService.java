package dev.specwatch.notify;

import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Transition;
import dev.specwatch.alerting.TransitionSink;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.store.KeyedStore;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything between the alert engine and the receivers: the durable outbox and its delivery
 * workers, repeats while firing and re-sends, each asked of the notifiers ({@link
 * Notifier#repeatDue}, {@link Notifier#resendFiring}, {@link Notifier#interactions}): no notifier
 * is special here, so a new one needs no change to this class. The engine's transitions enter
 * through {@link #sink()}; {@link #afterCycle} runs after every evaluation.
 */
public final class NotificationService implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(NotificationService.class);

  private final Outbox outbox;
  private final Map<String, Notifier> notifiers;
  private final List<DeliveryWorker> workers;
  private final KeyedStore<Transition> firing;
  private final NotificationStores stores;
  private final Clock clock;

  /** A service with stores of its own (commands and tests). */
  public NotificationService(SpecwatchConfig config, Clock clock, DeliveryListener listener)
      throws IOException {
    this(
        config,
        NotificationStores.open(config.stateDir(), new StateHealth(config.stateDir()), clock),
        clock,
        listener);
  }

  /**
   * @param stores shared by the services of successive configs (see {@link NotificationStores})
   */
  public NotificationService(
      SpecwatchConfig config, NotificationStores stores, Clock clock, DeliveryListener listener) {
    this(config, stores, clock, listener, null);
  }

  /**
   * @param silencer what a receiver's actions call (Slack's silence buttons); null: no actions
   */
  public NotificationService(
      SpecwatchConfig config,
      NotificationStores stores,
      Clock clock,
      DeliveryListener listener,
      Silencer silencer) {
    this.stores = stores;
    this.outbox = stores.outbox();
    this.firing = stores.firing();
    this.clock = clock;
    this.notifiers =
        Notifiers.create(
            config, stores.threads(), stores.slackGroups(), stores.channelPace(), clock);
    List<DeliveryWorker> perNotifier = new ArrayList<>();
    for (Notifier n : notifiers.values()) {
      perNotifier.add(
          new DeliveryWorker(
              outbox,
              Map.of(n.name(), n),
              clock,
              new Random(),
              listener,
              stores.health(),
              stores::flush,
              "specwatch-outbox-" + n.name()));
    }
    this.workers = List.copyOf(perNotifier);
    List<Interactions> running = new ArrayList<>();
    Interactions.Context context = new Interactions.Context(firing, silencer);
    for (Notifier n : notifiers.values()) {
      n.interactions(context).ifPresent(running::add);
    }
    this.actions = List.copyOf(running);
  }

  /** What the notifiers run beside their deliveries (Slack's Socket Mode). */
  private final List<Interactions> actions;

  public Map<String, Notifier> notifiers() {
    return notifiers;
  }

  /** One delivery pass of every notifier's worker (tests); returns how many were delivered. */
  public int deliverOnce() throws IOException {
    int delivered = 0;
    for (DeliveryWorker w : workers) {
      delivered += w.runOnce();
    }
    return delivered;
  }

  public Outbox outbox() {
    return outbox;
  }

  private void wakeAll() {
    workers.forEach(DeliveryWorker::wake);
  }

  /** Where the alert engine's transitions go: durably into the outbox, one per notifier. */
  public TransitionSink sink() {
    OutboxSink outboxSink =
        new OutboxSink(outbox, List.copyOf(notifiers.keySet()), clock, this::wakeAll);
    return t -> {
      outboxSink.deliver(t);
      if (t.kind() == Transition.Kind.FIRING) {
        firing.put(t.alertId(), t);
      } else {
        firing.remove(t.alertId());
      }
      actions.forEach(a -> a.transitioned(t));
    };
  }

  /**
   * Repeats for alerts still firing past their notifier's repeat interval; Alertmanager re-sends.
   */
  public void afterCycle(AlertState state) {
    afterCycle(state, alert -> true);
  }

  /**
   * Repeats and re-sends for the alerts {@code owned} by the evaluation that produced {@code state}
   * (one shard of a cluster's evaluation owns its recipes' alerts).
   */
  public void afterCycle(AlertState state, Predicate<AlertKey> owned) {
    if (stopped) {
      return; // a reload replaced this service: the next cycle's service queues the repeats
    }
    Instant now = clock.instant();
    List<Transition> stillFiring = new ArrayList<>();
    for (Transition t : firing.all().values()) {
      if (!owned.test(t.key())) {
        continue;
      }
      var alert = state.alerts().get(t.alertId());
      if (alert == null || alert.phase() != AlertPhase.FIRING) {
        firing.remove(t.alertId());
      } else {
        stillFiring.add(t);
      }
    }
    List<Intent> repeats = new ArrayList<>();
    Set<String> queuedRepeats = new HashSet<>();
    try {
      for (Intent i : outbox.pending()) {
        if (i.kind() == Intent.Kind.REPEAT) {
          queuedRepeats.add(i.stream());
        }
      }
    } catch (IOException e) {
      logger.warn("cannot read the outbox: {}", e.getMessage());
      return;
    }
    for (Notifier n : notifiers.values()) {
      for (Transition t : stillFiring) {
        Intent repeat = Intent.of(n.name(), Intent.Kind.REPEAT, t, now);
        // One reminder queued at a time: while the receiver is down the reminder waits in the
        // outbox and its last post stays old, which would otherwise queue another reminder at
        // every evaluation.
        if (!queuedRepeats.contains(repeat.stream()) && n.repeatDue(t, now)) {
          repeats.add(
              new Intent(
                  repeat.id() + "-" + now.toEpochMilli(),
                  repeat.notifier(),
                  repeat.kind(),
                  t,
                  0,
                  now,
                  now,
                  null,
                  null));
        }
      }
      if (!stillFiring.isEmpty()) {
        resend(n, List.copyOf(stillFiring), now);
      }
    }
    if (!repeats.isEmpty()) {
      try {
        outbox.add(repeats);
        wakeAll();
      } catch (IOException e) {
        logger.warn("cannot queue repeat notifications: {}", e.getMessage());
      }
    }
  }

  /** Set by {@link #stop}: a cycle that ends after it queues nothing here. */
  private volatile boolean stopped;

  /** A re-send of the alerts still firing, waiting for the re-send thread. */
  private record Resend(List<Transition> firing, Instant at) {}

  /**
   * Re-sends run off the evaluation (an Alertmanager POST may take its whole timeout, and the
   * evaluation holds the lock that reload and stop wait for): one thread, owned here and stopped
   * with the workers; a re-send that has not started yet is replaced by a newer one.
   */
  private final ExecutorService resends =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "specwatch-resend");
            t.setDaemon(true);
            return t;
          });

  private final Map<String, Resend> waitingResends = new ConcurrentHashMap<>();

  private void resend(Notifier n, List<Transition> firing, Instant now) {
    if (waitingResends.put(n.name(), new Resend(firing, now)) != null || resends.isShutdown()) {
      return; // the one already waiting sends this newer list
    }
    resendsInFlight.incrementAndGet();
    try {
      resends.execute(() -> resendNow(n));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Stopped meanwhile: the service of the next config (or process) re-sends.
      resendsInFlight.decrementAndGet();
    }
  }

  /** On the re-send thread: the newest list waiting for {@code n}. */
  private void resendNow(Notifier n) {
    Resend r = waitingResends.remove(n.name());
    try {
      if (r == null) {
        return; // sent by the task before this one
      }
      DeliveryResult result = n.resendFiring(r.firing(), r.at());
      if (!(result instanceof DeliveryResult.Delivered)) {
        logger.warn(
            "re-sending {} firing alert(s) to {} failed: {}", r.firing().size(), n.name(), result);
      }
    } catch (RuntimeException e) {
      logger.error("re-sending firing alerts to {} failed unexpectedly", n.name(), e);
    } finally {
      resendsInFlight.decrementAndGet();
    }
  }

  private final java.util.concurrent.atomic.AtomicInteger resendsInFlight =
      new java.util.concurrent.atomic.AtomicInteger();

  /** Whether a re-send is waiting or running on the re-send thread (tests). */
  boolean resending() {
    return resendsInFlight.get() > 0;
  }

  /**
   * Starts one worker per notifier. Intents of notifiers no longer in the config are set aside
   * first (kept in {@code outbox/failed/}).
   */
  public void start() {
    try {
      for (Intent i : outbox.pendingOfThisProcessAlone()) {
        if (!notifiers.containsKey(i.notifier())) {
          logger.warn(
              "dropping notification {}: notifier '{}' is no longer configured",
              i.id(),
              i.notifier());
          outbox.failed(i, "notifier removed from the config");
        }
      }
    } catch (IOException e) {
      stores.health().failed(e);
    }
    workers.forEach(DeliveryWorker::start);
    actions.forEach(Interactions::start);
  }

  /**
   * Stops the workers, waiting at most {@code bound} for deliveries in flight. A delivery still
   * waiting on its receiver after that keeps its claim on the intent, so the workers of a reloaded
   * config wait for its outcome instead of sending it again.
   */
  public void stop(Duration bound) {
    stopped = true;
    actions.forEach(Interactions::close);
    long deadline = System.nanoTime() + bound.toNanos();
    resends.shutdown();
    workers.forEach(w -> w.stop(Duration.ZERO));
    for (DeliveryWorker w : workers) {
      w.stop(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }
    try {
      if (!resends.awaitTermination(
          Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        resends.shutdownNow();
      }
    } catch (InterruptedException e) {
      resends.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(5));
  }
}
