package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.backend.StateBackend;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quartz.Scheduler;

/**
 * The evaluation schedule on the daemon's own scheduler without a database (the file backend's: an
 * in-memory job store whose misfire threshold is 1 s) and an interval of an hour, so that every run
 * the test sees is one the schedule asked for now, not a repeat.
 */
class ScheduleTest {
  @TempDir Path dir;

  Scheduler scheduler() throws Exception {
    return StateBackend.files(dir, Clock.systemUTC()).scheduler(3);
  }

  /** {@code real}, whose {@code start()} comes 2.5 s late: a loaded machine starting the JVM. */
  static Scheduler startingLate(Scheduler real) {
    return (Scheduler)
        Proxy.newProxyInstance(
            Scheduler.class.getClassLoader(),
            new Class<?>[] {Scheduler.class},
            (proxy, method, args) -> {
              if (method.getName().equals("start") && method.getParameterCount() == 0) {
                Thread.sleep(2500);
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void theFirstEvaluationRunsHoweverLateTheSchedulerStarts() throws Exception {
    // Before: the repeating trigger's first fire was more than the misfire threshold late, so it
    // was skipped to the next one, an interval later (here an hour).
    Semaphore runs = new Semaphore(0);
    Schedule s =
        Schedule.start(startingLate(scheduler()), shard -> runs.release(), 1, Duration.ofHours(1));
    try {
      assertThat(runs.tryAcquire(60, TimeUnit.SECONDS)).as("the first evaluation ran").isTrue();
    } finally {
      s.close();
    }
  }

  @Test
  void aWatchdogFireAndANewIntervalEachRunTheEvaluationNow() throws Exception {
    Semaphore runs = new Semaphore(0);
    try (Schedule s =
        Schedule.start(scheduler(), shard -> runs.release(), 2, Duration.ofHours(1))) {
      assertThat(runs.tryAcquire(2, 60, TimeUnit.SECONDS)).as("both shards, at start").isTrue();
      s.fireNow();
      assertThat(runs.tryAcquire(2, 60, TimeUnit.SECONDS)).as("both shards, fired").isTrue();
      s.interval(Duration.ofHours(2));
      assertThat(runs.tryAcquire(2, 60, TimeUnit.SECONDS)).as("both shards, new interval").isTrue();
      s.interval(Duration.ofHours(2));
      assertThat(runs.tryAcquire(1, 3, TimeUnit.SECONDS)).as("an unchanged interval").isFalse();
    }
  }

  @Test
  void theDiagnosisNamesARunAskedForNowThatHasNotRunYet() throws Exception {
    // The first run holds the shard; a watchdog fire behind it waits (one run at a time per shard).
    Semaphore started = new Semaphore(0);
    Semaphore release = new Semaphore(0);
    try (Schedule s =
        Schedule.start(
            scheduler(),
            shard -> {
              started.release();
              release.acquireUninterruptibly();
            },
            1,
            Duration.ofHours(1))) {
      assertThat(started.tryAcquire(60, TimeUnit.SECONDS)).as("the first run").isTrue();
      // One shard's job and triggers are "evaluation" and "evaluation-now".
      assertThat(s.diagnose())
          .contains("; evaluation-now BLOCKED, asked for at ")
          .contains(", running since ")
          .doesNotContain("not run yet")
          .contains("1 job(s) running");
      s.fireNow();
      assertThat(s.diagnose())
          .contains("; evaluation BLOCKED, next fire ")
          .contains("; evaluation-now BLOCKED, asked for at ")
          .contains(", not run yet");
      release.release();
      assertThat(started.tryAcquire(60, TimeUnit.SECONDS)).as("the run asked for").isTrue();
      release.release();
    }
  }
}
