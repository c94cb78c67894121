package dev.specwatch.notify;

import java.io.IOException;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the outbox: due intents in sequence order, each alert's intents for one notifier
 * strictly in order (a resolve never overtakes its firing), failures retried with exponential
 * backoff and jitter (or the receiver's Retry-After), permanent failures logged once and set aside.
 * One notifier failing never holds up the others. Runs on its own named thread.
 */
public final class DeliveryWorker implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(DeliveryWorker.class);
  static final Duration BASE_DELAY = Duration.ofSeconds(1);
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

  public DeliveryWorker(
      Outbox outbox,
      Map<String, Notifier> notifiers,
      Clock clock,
      Random random,
      DeliveryListener listener) {
    this.outbox = outbox;
    this.listener = listener;
    this.notifiers = Map.copyOf(notifiers);
    this.clock = clock;
    this.random = random;
  }

  /** One pass over the outbox; returns how many intents were delivered. */
  public int runOnce() throws IOException {
    Instant now = clock.instant();
    List<Intent> pending = outbox.pending();
    Set<String> blocked = new HashSet<>();
    int delivered = 0;
    Instant earliest = null;
    for (Intent intent : pending) {
      if (blocked.contains(intent.stream())) {
        earliest = earlier(earliest, intent.nextAttemptAt());
        continue;
      }
      if (intent.nextAttemptAt().isAfter(now)) {
        blocked.add(intent.stream());
        earliest = earlier(earliest, intent.nextAttemptAt());
        continue;
      }
      Notifier notifier = notifiers.get(intent.notifier());
      if (notifier == null) {
        logger.warn(
            "dropping notification {}: notifier '{}' is no longer configured",
            intent.id(),
            intent.notifier());
        outbox.failed(intent, "notifier removed from the config");
        continue;
      }
      DeliveryResult result;
      try {
        result = notifier.send(intent);
      } catch (RuntimeException e) {
        result =
            DeliveryResult.retry(
                "unexpected " + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      if (result instanceof DeliveryResult.Delivered) {
        outbox.delivered(intent);
        listener.delivered(intent.notifier());
        delivered++;
      } else if (result instanceof DeliveryResult.Paced paced) {
        Intent next = intent.pacedUntil(now.plus(paced.after()));
        outbox.reschedule(next);
        blocked.add(intent.stream());
        earliest = earlier(earliest, next.nextAttemptAt());
      } else if (result instanceof DeliveryResult.Retry retry) {
        Duration delay = retry.after().isZero() ? backoff(intent.attempts()) : retry.after();
        Intent next = intent.retryAt(now.plus(delay), retry.reason());
        outbox.reschedule(next);
        blocked.add(intent.stream());
        earliest = earlier(earliest, next.nextAttemptAt());
        listener.failed(intent.notifier());
        logger.warn(
            "{} notification for {} via {} failed (attempt {}), retrying in {} ms: {}",
            intent.kind(),
            intent.transition().alertId(),
            intent.notifier(),
            next.attempts(),
            delay.toMillis(),
            retry.reason());
      } else if (result instanceof DeliveryResult.Permanent permanent) {
        logger.error(
            "{} notification for {} via {} cannot be delivered and is dropped: {}",
            intent.kind(),
            intent.transition().alertId(),
            intent.notifier(),
            permanent.reason());
        outbox.failed(intent, permanent.reason());
        listener.failed(intent.notifier());
      }
    }
    nextDue = earliest;
    return delivered;
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
    thread = new Thread(this::loop, "specwatch-outbox");
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
    if (thread != null) {
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
