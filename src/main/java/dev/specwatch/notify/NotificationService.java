package dev.specwatch.notify;

import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Transition;
import dev.specwatch.alerting.TransitionSink;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything between the alert engine and the receivers: the durable outbox and its delivery
 * worker, Slack threads, repeats while firing, and Alertmanager re-sends. The engine's transitions
 * enter through {@link #sink()}; {@link #afterCycle} runs after every evaluation.
 */
public final class NotificationService implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(NotificationService.class);

  private final Outbox outbox;
  private final Map<String, Notifier> notifiers;
  private final DeliveryWorker worker;
  private final SlackThreadStore threads;
  private final JsonMapStore<Transition> firing;
  private final Clock clock;

  public NotificationService(SpecwatchConfig config, Clock clock, DeliveryListener listener)
      throws IOException {
    this(
        new FileOutbox(config.stateDir()),
        config,
        new SlackThreadStore(config.stateDir()),
        clock,
        listener);
  }

  NotificationService(
      Outbox outbox,
      SpecwatchConfig config,
      SlackThreadStore threads,
      Clock clock,
      DeliveryListener listener)
      throws IOException {
    this.outbox = outbox;
    this.threads = threads;
    this.clock = clock;
    this.notifiers = Notifiers.create(config, threads, clock);
    this.firing = new JsonMapStore<>(config.stateDir().resolve("firing.json"), Transition.class);
    this.worker = new DeliveryWorker(outbox, notifiers, clock, new Random(), listener);
  }

  public Map<String, Notifier> notifiers() {
    return notifiers;
  }

  public DeliveryWorker worker() {
    return worker;
  }

  public Outbox outbox() {
    return outbox;
  }

  /** Where the alert engine's transitions go: durably into the outbox, one per notifier. */
  public TransitionSink sink() {
    OutboxSink outboxSink =
        new OutboxSink(outbox, List.copyOf(notifiers.keySet()), clock, worker::wake);
    return t -> {
      outboxSink.deliver(t);
      if (t.kind() == Transition.Kind.FIRING) {
        firing.put(t.alertId(), t);
      } else {
        firing.remove(t.alertId());
      }
    };
  }

  /**
   * Repeats for alerts still firing past their notifier's repeat interval; Alertmanager re-sends.
   */
  public void afterCycle(AlertState state) {
    Instant now = clock.instant();
    List<Transition> stillFiring = new ArrayList<>();
    for (Transition t : firing.all().values()) {
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
      Optional<Duration> interval = n.repeatInterval();
      if (interval.isPresent()) {
        for (Transition t : stillFiring) {
          threads
              .get(t.alertId())
              .ifPresent(
                  th -> {
                    if (Duration.between(th.lastPostAt(), now).compareTo(interval.get()) >= 0) {
                      Intent repeat = Intent.of(n.name(), Intent.Kind.REPEAT, t, now);
                      repeats.add(
                          new Intent(
                              repeat.id() + "-" + now.toEpochMilli(),
                              repeat.notifier(),
                              repeat.kind(),
                              t,
                              0,
                              now,
                              now,
                              null));
                    }
                  });
        }
      }
      if (!stillFiring.isEmpty()) {
        DeliveryResult r = n.resendFiring(stillFiring, now);
        if (!(r instanceof DeliveryResult.Delivered)) {
          logger.warn(
              "re-sending {} firing alert(s) to {} failed: {}", stillFiring.size(), n.name(), r);
        }
      }
    }
    if (!repeats.isEmpty()) {
      try {
        outbox.add(repeats);
        worker.wake();
      } catch (IOException e) {
        logger.warn("cannot queue repeat notifications: {}", e.getMessage());
      }
    }
  }

  public void start() {
    worker.start();
  }

  @Override
  public void close() {
    worker.close();
  }
}
