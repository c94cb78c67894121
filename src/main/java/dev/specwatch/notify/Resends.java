package dev.specwatch.notify;

import dev.specwatch.alerting.Transition;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-sends of the alerts still firing ({@link Notifier#resendFiring}) run off the evaluation (an
 * Alertmanager POST may take its whole timeout, and the evaluation holds the lock that reload and
 * stop wait for): one thread, owned by the notification service and stopped with it; a re-send that
 * has not started yet is replaced by a newer one.
 */
final class Resends {
  private static final Logger logger = LoggerFactory.getLogger(NotificationService.class);

  /** A re-send of the alerts still firing, waiting for the re-send thread. */
  private record Resend(List<Transition> firing, Instant at) {}

  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "specwatch-resend");
            t.setDaemon(true);
            return t;
          });

  private final Map<String, Resend> waiting = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();

  void resend(Notifier n, List<Transition> firing, Instant now) {
    if (waiting.put(n.name(), new Resend(firing, now)) != null || thread.isShutdown()) {
      return; // the one already waiting sends this newer list
    }
    inFlight.incrementAndGet();
    try {
      thread.execute(() -> resendNow(n));
    } catch (RejectedExecutionException e) {
      // Stopped meanwhile: the service of the next config (or process) re-sends.
      inFlight.decrementAndGet();
    }
  }

  /** On the re-send thread: the newest list waiting for {@code n}. */
  private void resendNow(Notifier n) {
    Resend r = waiting.remove(n.name());
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
      inFlight.decrementAndGet();
    }
  }

  /** Whether a re-send is waiting or running. */
  boolean busy() {
    return inFlight.get() > 0;
  }

  /** Stops taking re-sends. */
  void shutdown() {
    thread.shutdown();
  }

  /** Waits for the running re-send until {@code deadline} (System.nanoTime), then abandons it. */
  void awaitStop(long deadline) {
    try {
      if (!thread.awaitTermination(
          Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
