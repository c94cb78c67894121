package dev.specwatch.schedule;

import dev.specwatch.model.Durations;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches {@link Liveness} from a thread of its own (not Quartz's, which is what may stall): while
 * evaluations happen it feeds systemd's watchdog ({@code WATCHDOG=1}, when the unit has {@code
 * WatchdogSec=}); once they stall it stops feeding (systemd then restarts the service), says why
 * with what Quartz believes (the trigger's next fire time against the wall clock), and fires the
 * evaluation at once so that a process nobody restarts (a plain {@code java -jar}) heals too.
 *
 * <p>The stall it was built for: Quartz computes a trigger's next fire time on the wall clock, so a
 * wall clock that steps back (NTP at boot, a resumed VM) leaves every worker idle for the length of
 * the step (reproduced with libfaketime: a 5-minute step back, no evaluation for 5 minutes). The
 * watchdog compares the wall clock with the monotonic one on every look and reschedules the
 * evaluation as soon as it sees such a step.
 */
final class Watchdog implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(Watchdog.class);

  /** How often liveness is checked without a systemd watchdog. */
  static final Duration CHECK = Duration.ofSeconds(10);

  /** A wall clock that moved back this much against the monotonic one stepped (NTP slews less). */
  static final Duration STEP_BACK = Duration.ofSeconds(5);

  /** What the watchdog can ask of the schedule. */
  interface Scheduler {
    /** What Quartz believes, for the log line. */
    String diagnose();

    /** Fires the evaluation now. */
    void fireNow();
  }

  private final Liveness liveness;
  private final Scheduler scheduler;
  private final Optional<SystemdNotify> systemd;
  private final boolean feedSystemd;
  private final ScheduledExecutorService thread;
  private final LongSupplier wallMillis;
  private final LongSupplier monoNanos;
  private Optional<String> stall = Optional.empty();

  /** The wall clock minus the monotonic one at the last look (at start before the first). */
  private long offset;

  private Watchdog(
      Liveness liveness,
      Scheduler scheduler,
      Optional<SystemdNotify> systemd,
      Optional<Duration> watchdogTimeout,
      LongSupplier wallMillis,
      LongSupplier monoNanos) {
    this.wallMillis = wallMillis;
    this.monoNanos = monoNanos;
    this.offset = wallMillis.getAsLong() - monoNanos.getAsLong() / 1_000_000;
    this.liveness = liveness;
    this.scheduler = scheduler;
    this.systemd = systemd;
    this.feedSystemd = systemd.isPresent() && watchdogTimeout.isPresent();
    Duration period =
        feedSystemd && watchdogTimeout.get().dividedBy(3).compareTo(CHECK) < 0
            ? watchdogTimeout.get().dividedBy(3)
            : CHECK;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "specwatch-watchdog");
              t.setDaemon(true);
              return t;
            });
    long millis = Math.max(100, period.toMillis());
    // check() catches everything, so the future holds no exception worth reading.
    var unused = thread.scheduleWithFixedDelay(this::check, millis, millis, TimeUnit.MILLISECONDS);
  }

  static Watchdog start(
      Liveness liveness,
      Scheduler scheduler,
      Optional<SystemdNotify> systemd,
      Optional<Duration> watchdogTimeout) {
    return new Watchdog(
        liveness, scheduler, systemd, watchdogTimeout, System::currentTimeMillis, System::nanoTime);
  }

  /** With the wall and monotonic clocks given (tests). */
  static Watchdog start(
      Liveness liveness, Scheduler scheduler, LongSupplier wallMillis, LongSupplier monoNanos) {
    return new Watchdog(
        liveness, scheduler, Optional.empty(), Optional.empty(), wallMillis, monoNanos);
  }

  /**
   * One look: reschedule at once after the wall clock stepped back; feed systemd while alive; say
   * and heal a stall once when it starts.
   */
  void check() {
    try {
      long o = wallMillis.getAsLong() - monoNanos.getAsLong() / 1_000_000;
      if (offset - o > STEP_BACK.toMillis()) {
        logger.warn(
            "the wall clock stepped back by {}; Quartz would wait that long for the next"
                + " evaluation, so it is rescheduled from now",
            Durations.format(Duration.ofSeconds(Math.round((offset - o) / 1000.0))));
        scheduler.fireNow();
      }
      offset = o;
      Optional<String> now = liveness.stalled();
      if (now.isEmpty()) {
        if (stall.isPresent()) {
          logger.info("evaluations are running again");
        }
        stall = now;
        if (feedSystemd) {
          systemd.get().send("WATCHDOG=1");
        }
        return;
      }
      if (stall.isEmpty()) {
        logger.error(
            "specwatch is stuck: {}; {}. Firing the evaluation now{}",
            now.get(),
            scheduler.diagnose(),
            feedSystemd ? "; systemd's watchdog is no longer fed and restarts the service" : "");
        systemd.ifPresent(s -> s.send("STATUS=stuck: " + now.get()));
        scheduler.fireNow();
      }
      stall = now;
    } catch (RuntimeException e) { // the watchdog must outlive anything it calls
      logger.warn("watchdog check failed: {}", e.toString());
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
