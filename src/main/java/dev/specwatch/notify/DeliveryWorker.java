package dev.specwatch.notify;

import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the outbox: due intents in sequence order, each alert's intents for one notifier
 * strictly in order (a resolve never overtakes its firing), failures retried with exponential
 * backoff and jitter (or the receiver's Retry-After), permanent failures logged once and set aside.
 * The daemon runs one worker per notifier, each on its own named thread, so a receiver that hangs
 * until its call deadline delays no other. Error texts are scrubbed of credentials before they are
 * logged or stored.
 */
public final class DeliveryWorker implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(DeliveryWorker.class);
  public static final Duration BASE_DELAY = Duration.ofSeconds(1);
  static final Duration MAX_DELAY = Duration.ofMinutes(5);
  private static final Duration IDLE_POLL = Duration.ofSeconds(1);

  private final Outbox outbox;
  private final Map<String, Notifier> notifiers;
  private final Clock clock;
  private final Random random;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wakeUp = lock.newCondition();
  private volatile boolean running;

  /** The earliest retry time the last pass left in the outbox; null when it is empty. */
  private volatile Instant nextDue;

  private boolean woken;
  private Thread thread;
  private final DeliveryListener listener;
  private final StateHealth health;

  /** The intents queued before this worker started (their first attempt is uncertain). */
  private Set<String> pendingAtStart;

  /**
   * Intents whose uncertain attempt was paced or made to wait before it reached the receiver: the
   * next attempt is still uncertain (it looks for the message an earlier one may have posted).
   */
  private final Set<String> stillUncertain = new HashSet<>();

  /** Whether the last {@link #attempt} reached its receiver (not paced, not waiting). */
  private boolean reached;

  private final Instant startedAt;

  /** Notifiers that paced an attempt, until when: memory only (pacing is per process). */
  private final Map<String, Instant> pacedUntil = new java.util.concurrent.ConcurrentHashMap<>();

  private final BooleanSupplier flush;
  private final String threadName;
  private boolean started;

  /** A worker with a state health of its own (tests). */
  public DeliveryWorker(
      Outbox outbox,
      Map<String, Notifier> notifiers,
      Clock clock,
      Random random,
      DeliveryListener listener) {
    this(
        outbox,
        notifiers,
        clock,
        random,
        listener,
        new StateHealth(Path.of(".")),
        () -> true,
        "specwatch-outbox");
  }

  /**
   * @param notifiers the notifiers this worker delivers for; intents of others are left alone
   * @param health where failed writes are reported and probed
   * @param flush writes receivers' own records that a failed save left in memory
   */
  public DeliveryWorker(
      Outbox outbox,
      Map<String, Notifier> notifiers,
      Clock clock,
      Random random,
      DeliveryListener listener,
      StateHealth health,
      BooleanSupplier flush,
      String threadName) {
    this.outbox = outbox;
    this.listener = listener;
    this.health = health;
    this.flush = flush;
    this.threadName = threadName;
    this.notifiers = Map.copyOf(notifiers);
    this.clock = clock;
    this.random = random;
    this.startedAt = clock.instant();
  }

  /**
   * One pass over the outbox; returns how many intents were delivered. Nothing is sent while the
   * state directory cannot record the outcome: a delivery that cannot be recorded stops the pass,
   * and later passes only probe the directory until it is writable again.
   */
  public int runOnce() throws IOException {
    if ((health.problem().isPresent() && !health.probe()) || !flush.getAsBoolean()) {
      nextDue = null; // probe again after the idle poll
      return 0;
    }
    Instant now = clock.instant();
    List<Intent> pending = outbox.pending();
    if (pendingAtStart == null) {
      // Those queued before this worker started may have been in flight when the previous
      // process died: the receiver may have them already (the crash window), so their first
      // attempt here is an uncertain one.
      pendingAtStart = new HashSet<>();
      pending.stream()
          .filter(i -> i.createdAt().isBefore(startedAt))
          .forEach(i -> pendingAtStart.add(i.outboxKey()));
    }
    Set<String> blocked = new HashSet<>();
    int delivered = 0;
    Instant earliest = null;
    for (Intent intent : pending) {
      if (!running && started) {
        break; // stopping (a reload): leave the rest to the next worker
      }
      Notifier notifier = notifiers.get(intent.notifier());
      if (notifier == null) {
        continue; // another worker's notifier
      }
      if (blocked.contains(intent.stream())) {
        earliest = earlier(earliest, intent.nextAttemptAt());
        continue;
      }
      if (intent.nextAttemptAt().isAfter(now)) {
        blocked.add(intent.stream());
        earliest = earlier(earliest, intent.nextAttemptAt());
        continue;
      }
      Instant paced = pacedUntil.get(intent.notifier());
      if (paced != null && paced.isAfter(now)) {
        // Its notifier paced the last attempt (Slack: one post a second a channel): no claim and
        // no write for any of its intents until then, so pacing costs no outbox writes per
        // waiting intent.
        earliest = earlier(earliest, paced);
        continue;
      }
      if (!outbox.claim(intent)) {
        // Still being sent by the worker of the config before a reload: wait for its outcome.
        blocked.add(intent.stream());
        earliest = earlier(earliest, now.plus(IDLE_POLL));
        continue;
      }
      boolean tookOver = outbox.tookOver(intent);
      boolean uncertain =
          pendingAtStart.remove(intent.outboxKey())
              || tookOver
              || stillUncertain.remove(intent.outboxKey());
      try {
        Outcome outcome = attempt(notifier, intent, now, uncertain);
        if (uncertain && outcome instanceof Outcome.Later && !reached) {
          // Paced or waiting: the receiver was not asked, so the doubt about an earlier attempt
          // (a crash, a replica taken over) still stands for the next one.
          stillUncertain.add(intent.outboxKey());
        }
        if (outcome == Outcome.DELIVERED) {
          delivered++;
        } else if (outcome == Outcome.UNRECORDED) {
          break;
        } else if (outcome instanceof Outcome.Later later) {
          blocked.add(intent.stream());
          earliest = earlier(earliest, later.at());
        }
      } finally {
        outbox.release(intent);
      }
    }
    nextDue = earliest;
    return delivered;
  }

  /** What one attempt left to do. */
  private sealed interface Outcome {
    Outcome DELIVERED = Done.DELIVERED;
    Outcome UNRECORDED = Done.UNRECORDED;
    Outcome GIVEN_UP = Done.GIVEN_UP;

    enum Done implements Outcome {
      DELIVERED,
      UNRECORDED,
      GIVEN_UP
    }

    record Later(Instant at) implements Outcome {}
  }

  private Outcome attempt(Notifier notifier, Intent intent, Instant now, boolean uncertain) {
    DeliveryResult result;
    reached = true;
    try {
      result = notifier.send(intent, uncertain);
      reached =
          !(result instanceof DeliveryResult.Paced || result instanceof DeliveryResult.Waiting);
    } catch (RuntimeException e) {
      result =
          DeliveryResult.retry(
              "unexpected " + e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    try {
      if (result instanceof DeliveryResult.Delivered) {
        outbox.delivered(intent);
        listener.delivered(intent.notifier());
        // A receiver's own record (the Slack message map) may have failed to save meanwhile.
        return health.problem().isPresent() ? Outcome.UNRECORDED : Outcome.DELIVERED;
      } else if (result instanceof DeliveryResult.Paced paced) {
        // The pace is this process's (its notifier's last post), so it stays in memory: writing
        // it to the outbox cost a row update per paced attempt (22,768 for 360 notifications).
        Instant at = now.plus(paced.after());
        pacedUntil.put(intent.notifier(), at);
        return new Outcome.Later(at);
      } else if (result instanceof DeliveryResult.Waiting waiting) {
        // One write: the intent's own next time (its group keeps what landed), other intents of
        // the notifier are not held.
        Intent next = intent.pacedUntil(now.plus(waiting.after()));
        outbox.reschedule(next);
        return new Outcome.Later(next.nextAttemptAt());
      } else if (result instanceof DeliveryResult.Progressed progressed) {
        // One write for a step that landed (what the retry must not repeat), shared through the
        // outbox with every replica.
        Intent next = intent.progressed(progressed.step(), now.plus(progressed.after()));
        outbox.reschedule(next);
        pacedUntil.put(intent.notifier(), next.nextAttemptAt());
        return new Outcome.Later(next.nextAttemptAt());
      } else if (result instanceof DeliveryResult.Retry retry) {
        Duration delay = retry.after().isZero() ? backoff(intent.attempts()) : retry.after();
        Intent next = intent.retryAt(now.plus(delay), retry.reason());
        listener.failed(intent.notifier());
        logger.warn(
            "{} notification for {} via {} failed (attempt {}), retrying in {} ms: {}",
            intent.kind(),
            intent.transition().alertId(),
            intent.notifier(),
            next.attempts(),
            delay.toMillis(),
            next.lastError());
        outbox.reschedule(next);
        return new Outcome.Later(next.nextAttemptAt());
      } else {
        String reason = ((DeliveryResult.Permanent) result).reason();
        logger.error(
            "{} notification for {} via {} cannot be delivered and is dropped: {}",
            intent.kind(),
            intent.transition().alertId(),
            intent.notifier(),
            reason);
        listener.failed(intent.notifier());
        outbox.failed(intent, reason);
        return Outcome.GIVEN_UP;
      }
    } catch (IOException e) {
      // The outcome cannot be recorded: the outbox remembers a delivery in memory (never sent
      // again by this process); everything else waits until the state directory is writable.
      health.failed(e);
      return Outcome.UNRECORDED;
    }
  }

  private static Instant earlier(Instant a, Instant b) {
    return a == null || b.isBefore(a) ? b : a;
  }

  /** Exponential backoff, capped, with jitter in [50 %, 100 %] of the step. */
  Duration backoff(int attempts) {
    long base = BASE_DELAY.toMillis() << Math.min(attempts, 20);
    long capped = Math.min(base, MAX_DELAY.toMillis());
    return Duration.ofMillis(capped / 2 + (long) (random.nextDouble() * (capped / 2.0)));
  }

  public void start() {
    running = true;
    started = true;
    thread = new Thread(this::loop, threadName);
    thread.setDaemon(true);
    thread.start();
  }

  /** Wakes the worker for new intents. */
  public void wake() {
    lock.lock();
    try {
      woken = true;
      wakeUp.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void loop() {
    while (running) {
      try {
        runOnce();
      } catch (IOException e) {
        health.failed(e); // logged once by the health, not once a second
      } catch (Throwable t) { // one bad pass must not stop delivery for good
        logger.error("outbox delivery pass failed; retrying", t);
      }
      lock.lock();
      try {
        if (!woken && running) {
          wakeUp.await(nextWait().toMillis(), TimeUnit.MILLISECONDS);
        }
        woken = false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        lock.unlock();
      }
    }
  }

  /** Until the earliest intent the last pass left waiting (new intents wake the worker). */
  private Duration nextWait() {
    Instant due = nextDue;
    if (due == null) {
      return IDLE_POLL;
    }
    Duration until = Duration.between(clock.instant(), due);
    if (until.compareTo(Duration.ofMillis(10)) < 0) {
      return Duration.ofMillis(10);
    }
    return until.compareTo(IDLE_POLL) < 0 ? until : IDLE_POLL;
  }

  /** Stops after the current pass, waiting at most {@code bound}; restores the interrupt flag. */
  public void stop(Duration bound) {
    running = false;
    wake();
    if (thread != null && bound.toMillis() > 0) {
      try {
        thread.join(bound.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(5));
  }
}
