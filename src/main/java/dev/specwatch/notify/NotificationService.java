package dev.specwatch.notify;

import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Transition;
import dev.specwatch.alerting.TransitionSink;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.store.KeyedStore;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
    this(config, stores, clock, listener, silencer, null);
  }

  /**
   * The service of a reloaded config: each notifier whose config (and what it depends on: {@link
   * Notifiers.Identity}) did not change is the one {@code previous} runs, with its worker and its
   * Socket Mode connection, taken over by {@link #takeOver()}; only changed and new notifiers are
   * built.
   *
   * @param previous the running service of the config before, or null
   */
  public NotificationService(
      SpecwatchConfig config,
      NotificationStores stores,
      Clock clock,
      DeliveryListener listener,
      Silencer silencer,
      NotificationService previous) {
    this.stores = stores;
    this.outbox = stores.outbox();
    this.firing = stores.firing();
    this.clock = clock;
    this.previous = previous;
    Interactions.Context context = new Interactions.Context(firing, silencer);
    Map<String, Running> built = new LinkedHashMap<>();
    String legacyOwner = Notifiers.legacyOwner(config);
    for (NotifierConfig n : config.notifiers()) {
      Notifiers.Identity identity = Notifiers.Identity.of(n, config, legacyOwner);
      Running same = previous == null ? null : previous.running.get(n.name());
      if (same != null && same.identity().equals(identity) && !previous.stopped) {
        built.put(n.name(), same);
        kept.add(n.name());
        continue;
      }
      Notifier notifier =
          Notifiers.create(
              n,
              config,
              stores.threads(),
              stores.slackGroups(),
              stores.channelPace(),
              clock,
              legacyOwner);
      DeliveryWorker worker =
          new DeliveryWorker(
              outbox,
              Map.of(notifier.name(), notifier),
              clock,
              new Random(),
              listener,
              stores.health(),
              stores::flush,
              "specwatch-outbox-" + notifier.name());
      built.put(n.name(), new Running(identity, notifier, worker, notifier.interactions(context)));
    }
    this.running = Map.copyOf(built);
    Map<String, Notifier> byName = new LinkedHashMap<>();
    built.forEach((name, r) -> byName.put(name, r.notifier()));
    this.notifiers = java.util.Collections.unmodifiableMap(byName);
    this.workers = built.values().stream().map(Running::worker).toList();
    this.actions = built.values().stream().flatMap(r -> r.interactions().stream()).toList();
  }

  /** One notifier as it runs: what built it, its delivery worker, what it runs beside. */
  private record Running(
      Notifiers.Identity identity,
      Notifier notifier,
      DeliveryWorker worker,
      Optional<Interactions> interactions) {}

  private final Map<String, Running> running;

  /** The service this one replaces, whose unchanged notifiers it keeps; or null. */
  private final NotificationService previous;

  /** Names of the notifiers kept from {@link #previous}: already running. */
  private final Set<String> kept = new HashSet<>();

  /** Names of this service's notifiers that a newer service took over: its stop leaves them. */
  private final Set<String> handedOver = ConcurrentHashMap.newKeySet();

  /**
   * Takes the unchanged notifiers over from the previous service, before it stops: its stop then
   * leaves their workers and connections running for this service.
   */
  public void takeOver() {
    if (previous != null) {
      previous.handedOver.addAll(kept);
    }
  }

  /** The names of the notifiers kept running from the previous config (tests, the reload log). */
  public Set<String> kept() {
    return Set.copyOf(kept);
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
        if (!n.repeatDue(t, now)) {
          continue;
        }
        Intent repeat = Intent.of(n.name(), Intent.Kind.REPEAT, t, now);
        // One reminder queued at a time: while the receiver is down the reminder waits in the
        // outbox and its last post stays old, which would otherwise queue another reminder at
        // every evaluation.
        if (!queuedRepeats.contains(repeat.stream())) {
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
        resends.resend(n, List.copyOf(stillFiring), now);
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

  /** Re-sends of the alerts still firing, off the evaluation. */
  private final Resends resends = new Resends();

  /** Whether a re-send is waiting or running on the re-send thread (tests). */
  boolean resending() {
    return resends.busy();
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
    running.forEach(
        (name, r) -> {
          if (!kept.contains(name)) {
            r.worker().start();
            r.interactions().ifPresent(Interactions::start);
          }
        });
  }

  /**
   * Stops the workers, waiting at most {@code bound} for deliveries in flight. A delivery still
   * waiting on its receiver after that keeps its claim on the intent, so the workers of a reloaded
   * config wait for its outcome instead of sending it again.
   */
  public void stop(Duration bound) {
    stopped = true;
    List<Running> mine =
        running.entrySet().stream()
            .filter(e -> !handedOver.contains(e.getKey()))
            .map(Map.Entry::getValue)
            .toList();
    mine.forEach(r -> r.interactions().ifPresent(Interactions::close));
    long deadline = System.nanoTime() + bound.toNanos();
    resends.shutdown();
    mine.forEach(r -> r.worker().stop(Duration.ZERO));
    for (Running r : mine) {
      r.worker().stop(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }
    resends.awaitStop(deadline);
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(5));
  }
}
