package dev.specwatch.digest;

import dev.specwatch.model.SpecwatchConfig;
import java.util.TimeZone;
import org.quartz.CronScheduleBuilder;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;

/**
 * Puts the weekly digest on the daemon's Quartz scheduler: a cron trigger in {@code
 * digest.time_zone}, plus a catch-up at start-up for a digest missed while the daemon was down
 * (within {@code max_lateness}, which {@link DigestService#sendIfDue} enforces).
 */
public final class DigestSchedule {
  public static final JobKey JOB = JobKey.jobKey("digest", "specwatch");

  private DigestSchedule() {}

  /** Replaces any digest job; schedules none when {@code service} is null (no digest section). */
  public static void apply(
      Scheduler scheduler, SpecwatchConfig.Digest digest, DigestService service)
      throws SchedulerException {
    scheduler.getContext().remove(DigestJob.CONTEXT_KEY);
    if (service == null) {
      // A scheduler shared by replicas (a clustered job store) leaves the job to those that have
      // a digest section.
      if (!scheduler.getMetaData().isJobStoreClustered()) {
        scheduler.deleteJob(JOB);
      }
      return;
    }
    scheduler.getContext().put(DigestJob.CONTEXT_KEY, service);
    JobDetail job = JobBuilder.newJob(DigestJob.class).withIdentity(JOB).build();
    // The catch-up is a one-shot trigger of the same job, on the scheduler's own threads (stopped
    // with it, never two at once: the job disallows concurrent runs); in a cluster one replica
    // runs it and the ledger in the database stops the others.
    Trigger catchUp =
        TriggerBuilder.newTrigger()
            .withIdentity("digest-catch-up", JOB.getGroup())
            .forJob(JOB)
            .startNow()
            .build();
    scheduler.scheduleJob(job, java.util.Set.of(trigger(digest), catchUp), true);
  }

  static Trigger trigger(SpecwatchConfig.Digest digest) {
    return TriggerBuilder.newTrigger()
        .withIdentity("digest", JOB.getGroup())
        .forJob(JOB)
        .withSchedule(
            CronScheduleBuilder.cronSchedule(digest.schedule())
                .inTimeZone(TimeZone.getTimeZone(digest.timeZone()))
                // A fire missed while down is handled by the catch-up, with its lateness bound.
                .withMisfireHandlingInstructionDoNothing())
        .build();
  }
}
