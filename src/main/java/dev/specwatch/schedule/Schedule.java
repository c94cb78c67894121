package dev.specwatch.schedule;

import dev.specwatch.digest.DigestSchedule;
import dev.specwatch.digest.DigestService;
import dev.specwatch.model.SpecwatchConfig;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.function.IntConsumer;
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
import org.quartz.impl.matchers.GroupMatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's Quartz scheduler: the evaluation every {@code evaluation.interval} (never two at
 * once, late runs skipped, not bunched) and the weekly digest ({@link DigestSchedule}). Named
 * daemon threads; the jobs have a {@code catch (Throwable)} boundary.
 */
final class Schedule implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(Schedule.class);

  static final String CONTEXT_KEY = "specwatch.evaluation";
  static final String GROUP = "specwatch";

  private final Scheduler scheduler;
  private final int shards;
  private final boolean clustered;
  private Duration interval;

  private Schedule(Scheduler scheduler, int shards, boolean clustered, Duration interval) {
    this.scheduler = scheduler;
    this.shards = shards;
    this.clustered = clustered;
    this.interval = interval;
  }

  static JobKey job(int shard) {
    return JobKey.jobKey(shard == 0 ? "evaluation" : "evaluation-" + shard, GROUP);
  }

  private static TriggerKey triggerKey(int shard) {
    return TriggerKey.triggerKey(job(shard).getName(), GROUP);
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
    IntConsumer one = shard -> evaluation.run();
    return begin(scheduler, one, 1, false, interval);
  }

  /**
   * Starts a clustered scheduler (the shared database's job store) with one evaluation job per
   * shard: each runs on one replica at a time, and the replicas share the shards. Jobs of shards
   * beyond {@code shards} (a smaller count than before) are deleted.
   */
  static Schedule clustered(
      Scheduler scheduler, IntConsumer evaluateShard, int shards, Duration interval)
      throws SchedulerException {
    for (JobKey key : scheduler.getJobKeys(GroupMatcher.jobGroupEquals(GROUP))) {
      if (key.getName().startsWith("evaluation-")) {
        String n = key.getName().substring("evaluation-".length());
        if (n.chars().allMatch(Character::isDigit) && Integer.parseInt(n) >= shards) {
          scheduler.deleteJob(key);
        }
      }
    }
    return begin(scheduler, evaluateShard, shards, true, interval);
  }

  private static Schedule begin(
      Scheduler scheduler,
      IntConsumer evaluateShard,
      int shards,
      boolean clustered,
      Duration interval)
      throws SchedulerException {
    scheduler.getContext().put(CONTEXT_KEY, evaluateShard);
    for (int i = 0; i < shards; i++) {
      JobDetail job =
          JobBuilder.newJob(EvaluationJob.class)
              .withIdentity(job(i))
              .usingJobData(EvaluationJob.SHARD, Integer.toString(i))
              .build();
      // Replaced, not added: the replicas of a cluster each (re)schedule the same jobs.
      scheduler.scheduleJob(job, Set.of(trigger(i, interval)), true);
    }
    scheduler.start();
    return new Schedule(scheduler, shards, clustered, interval);
  }

  private static Trigger trigger(int shard, Duration interval) {
    return TriggerBuilder.newTrigger()
        .withIdentity(triggerKey(shard))
        .forJob(job(shard))
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
      for (int i = 0; i < shards; i++) {
        scheduler.rescheduleJob(triggerKey(i), trigger(i, next));
      }
      interval = next;
    }
  }

  /** Replaces the digest job (none when {@code service} is null). */
  void digest(SpecwatchConfig.Digest digest, DigestService service) throws SchedulerException {
    DigestSchedule.apply(scheduler, digest, service, clustered);
  }

  /** No new job starts; running ones go on. */
  void pause() {
    try {
      scheduler.standby();
    } catch (SchedulerException e) {
      // Standby only fails on a scheduler that is already shut down: nothing runs either way.
      logger.debug("scheduler standby: {}", e.getMessage());
    }
  }

  @Override
  public void close() {
    try {
      scheduler.shutdown(false);
    } catch (SchedulerException e) {
      logger.warn("the scheduler did not shut down cleanly: {}", e.getMessage());
    }
  }
}
