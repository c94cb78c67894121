package dev.specwatch.schedule;

import dev.specwatch.digest.DigestSchedule;
import dev.specwatch.digest.DigestService;
import dev.specwatch.model.SpecwatchConfig;
import java.time.Duration;
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
import org.quartz.impl.matchers.GroupMatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's Quartz scheduler: the evaluation every {@code evaluation.interval} (never two at
 * once, late runs skipped, not bunched) and the weekly digest ({@link DigestSchedule}). Named
 * daemon threads; the jobs have a {@code catch (Throwable)} boundary.
 */
final class Schedule implements AutoCloseable, Watchdog.Scheduler {
  private static final Logger logger = LoggerFactory.getLogger(Schedule.class);

  static final String CONTEXT_KEY = "specwatch.evaluation";
  static final String GROUP = "specwatch";

  private final Scheduler scheduler;
  private final int shards;
  private Duration interval;

  private Schedule(Scheduler scheduler, int shards, Duration interval) {
    this.scheduler = scheduler;
    this.shards = shards;
    this.interval = interval;
  }

  static JobKey job(int shard) {
    return JobKey.jobKey(shard == 0 ? "evaluation" : "evaluation-" + shard, GROUP);
  }

  private static TriggerKey triggerKey(int shard) {
    return TriggerKey.triggerKey(job(shard).getName(), GROUP);
  }

  private static TriggerKey nowKey(int shard) {
    return TriggerKey.triggerKey(job(shard).getName() + "-now", GROUP);
  }

  /**
   * Starts {@code scheduler} (the state backend's: in memory, or the shared database's job store)
   * with one evaluation job per shard, each run at once and then every {@code interval}: each runs
   * on one process at a time, and the replicas of a cluster share the shards. Jobs of shards beyond
   * {@code shards} (a smaller count than before) are deleted.
   */
  static Schedule start(
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
    scheduler.getContext().put(CONTEXT_KEY, evaluateShard);
    for (int i = 0; i < shards; i++) {
      JobDetail job =
          JobBuilder.newJob(EvaluationJob.class)
              .withIdentity(job(i))
              .usingJobData(EvaluationJob.SHARD, Integer.toString(i))
              .build();
      // Replaced, not added: the replicas of a cluster each (re)schedule the same jobs.
      scheduler.scheduleJob(job, Set.of(now(i), every(i, interval)), true);
    }
    scheduler.start();
    return new Schedule(scheduler, shards, interval);
  }

  /**
   * One evaluation now, however late the scheduler's thread gets to it. The repeating trigger alone
   * skips a run more than the job store's misfire threshold (a second or two) late, and that is how
   * a loaded machine started: the trigger made, the scheduler's thread first run more than a second
   * later, and the first evaluation skipped to the next interval.
   */
  private static Trigger now(int shard) {
    return TriggerBuilder.newTrigger()
        .withIdentity(nowKey(shard))
        .forJob(job(shard))
        .startNow()
        .withSchedule(
            SimpleScheduleBuilder.simpleSchedule().withMisfireHandlingInstructionFireNow())
        .build();
  }

  /** Every {@code interval}, from one interval on (the run now is {@link #now}'s). */
  private static Trigger every(int shard, Duration interval) {
    return TriggerBuilder.newTrigger()
        .withIdentity(triggerKey(shard))
        .forJob(job(shard))
        .startAt(java.util.Date.from(java.time.Instant.now().plus(interval)))
        .withSchedule(
            SimpleScheduleBuilder.simpleSchedule()
                .withIntervalInMilliseconds(interval.toMillis())
                .repeatForever()
                // Missed runs (a long evaluation, a paused VM) are skipped, never bunched.
                .withMisfireHandlingInstructionNextWithRemainingCount())
        .build();
  }

  /** Evaluates {@code shard} now, and every {@code interval} from then on. */
  private void restart(int shard, Duration every) throws SchedulerException {
    scheduler.rescheduleJob(triggerKey(shard), every(shard, every));
    if (scheduler.rescheduleJob(nowKey(shard), now(shard)) == null) {
      try {
        scheduler.scheduleJob(now(shard));
      } catch (org.quartz.ObjectAlreadyExistsException e) {
        // Another replica asked for the same run a moment ago: one is enough.
        logger.debug("{} is already due now", nowKey(shard));
      }
    }
  }

  /** Changes the evaluation interval (on reload); no-op when unchanged. */
  synchronized void interval(Duration next) throws SchedulerException {
    if (!next.equals(interval)) {
      for (int i = 0; i < shards; i++) {
        restart(i, next);
      }
      interval = next;
    }
  }

  /** Replaces the digest job (none when {@code service} is null). */
  void digest(SpecwatchConfig.Digest digest, DigestService service) throws SchedulerException {
    DigestSchedule.apply(scheduler, digest, service);
  }

  /**
   * What Quartz believes about the evaluation: each trigger's state and next fire time against the
   * wall clock now (a next fire time far ahead of now, with nothing running, is a wall clock that
   * stepped back after the trigger was computed), running jobs, standby.
   */
  @Override
  public String diagnose() {
    StringBuilder out =
        new StringBuilder("Quartz: wall clock now ").append(java.time.Instant.now());
    try {
      for (int i = 0; i < shards; i++) {
        Trigger t = scheduler.getTrigger(triggerKey(i));
        out.append("; ").append(triggerKey(i).getName()).append(' ');
        if (t == null) {
          out.append("has no trigger");
        } else {
          out.append(scheduler.getTriggerState(t.getKey()))
              .append(", next fire ")
              .append(t.getNextFireTime() == null ? "never" : t.getNextFireTime().toInstant())
              .append(", previous ")
              .append(
                  t.getPreviousFireTime() == null ? "none" : t.getPreviousFireTime().toInstant());
        }
        // The run asked for now (at start, by the watchdog, on a new interval) is gone once it
        // has run; still here, it is running or has not started.
        Trigger now = scheduler.getTrigger(nowKey(i));
        if (now != null) {
          out.append("; ")
              .append(nowKey(i).getName())
              .append(' ')
              .append(scheduler.getTriggerState(now.getKey()))
              .append(", asked for at ")
              .append(now.getStartTime().toInstant())
              .append(
                  now.getPreviousFireTime() == null
                      ? ", not run yet"
                      : ", running since " + now.getPreviousFireTime().toInstant());
        }
      }
      out.append("; ")
          .append(scheduler.getCurrentlyExecutingJobs().size())
          .append(" job(s) running")
          .append(scheduler.isInStandbyMode() ? "; in standby" : "")
          .append(scheduler.isShutdown() ? "; shut down" : "");
    } catch (SchedulerException e) {
      out.append("; cannot read the scheduler: ").append(e.getMessage());
    }
    return out.toString();
  }

  /**
   * Replaces every evaluation trigger with one that fires now and then every interval (the
   * watchdog's cure for a stall): a trigger's next fire time is wall-clock time, so after the wall
   * clock stepped back Quartz would otherwise wait for the length of the step.
   */
  @Override
  public synchronized void fireNow() {
    for (int i = 0; i < shards; i++) {
      try {
        restart(i, interval);
      } catch (SchedulerException e) {
        logger.warn("cannot reschedule {}: {}", job(i).getName(), e.getMessage());
      }
    }
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
