package dev.specwatch.schedule;

import dev.specwatch.digest.DigestSchedule;
import dev.specwatch.digest.DigestService;
import dev.specwatch.model.SpecwatchConfig;
import java.time.Duration;
import java.util.Properties;
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

/**
 * The daemon's Quartz scheduler: the evaluation every {@code evaluation.interval} (never two at
 * once, late runs skipped, not bunched) and the weekly digest ({@link DigestSchedule}). Named
 * daemon threads; the jobs have a {@code catch (Throwable)} boundary.
 */
final class Schedule implements AutoCloseable {
  static final String CONTEXT_KEY = "specwatch.evaluation";
  private static final JobKey JOB = JobKey.jobKey("evaluation", "specwatch");
  private static final TriggerKey TRIGGER = TriggerKey.triggerKey("evaluation", "specwatch");

  private final Scheduler scheduler;
  private Duration interval;

  private Schedule(Scheduler scheduler, Duration interval) {
    this.scheduler = scheduler;
    this.interval = interval;
  }

  /** Starts the scheduler with {@code evaluation} due now and then every {@code interval}. */
  static Schedule start(Runnable evaluation, Duration interval) throws SchedulerException {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", "specwatch");
    p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    p.setProperty("org.quartz.threadPool.threadCount", "2");
    p.setProperty("org.quartz.threadPool.threadNamePrefix", "specwatch-quartz");
    p.setProperty("org.quartz.threadPool.makeThreadsDaemons", "true");
    p.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
    // A run more than this late counts as missed and is skipped (see the trigger).
    p.setProperty("org.quartz.jobStore.misfireThreshold", "1000");
    Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();
    scheduler.getContext().put(CONTEXT_KEY, evaluation);
    JobDetail job = JobBuilder.newJob(EvaluationJob.class).withIdentity(JOB).build();
    scheduler.scheduleJob(job, trigger(interval));
    scheduler.start();
    return new Schedule(scheduler, interval);
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

  /** Changes the evaluation interval (on reload); no-op when unchanged. */
  synchronized void interval(Duration next) throws SchedulerException {
    if (!next.equals(interval)) {
      scheduler.rescheduleJob(TRIGGER, trigger(next));
      interval = next;
    }
  }

  /** Replaces the digest job (none when {@code service} is null). */
  void digest(SpecwatchConfig.Digest digest, DigestService service) throws SchedulerException {
    DigestSchedule.apply(scheduler, digest, service);
  }

  /** No new job starts; running ones go on. */
  void pause() {
    try {
      scheduler.standby();
    } catch (SchedulerException e) {
      // standby only fails on a scheduler that is already shut down
    }
  }

  @Override
  public void close() {
    try {
      scheduler.shutdown(false);
    } catch (SchedulerException e) {
      // shutting down a scheduler that failed: nothing left to stop
    }
  }
}
