package dev.specwatch.schedule;

import java.util.function.IntConsumer;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One evaluation cycle, fired by Quartz every {@code evaluation.interval}. Never two at once; a run
 * that could not start on time is skipped, not bunched (the trigger's misfire policy).
 */
@DisallowConcurrentExecution
public final class EvaluationJob implements Job {
  private static final Logger logger = LoggerFactory.getLogger(EvaluationJob.class);

  /** The job data key of the shard this job evaluates (a string: the JDBC store keeps strings). */
  static final String SHARD = "shard";

  @Override
  public void execute(JobExecutionContext context) {
    try {
      IntConsumer evaluation =
          (IntConsumer) context.getScheduler().getContext().get(Schedule.CONTEXT_KEY);
      String shard = context.getMergedJobDataMap().getString(SHARD);
      evaluation.accept(shard == null ? 0 : Integer.parseInt(shard));
    } catch (SchedulerException e) {
      logger.error("evaluation job cannot reach the daemon", e);
    } catch (Throwable t) { // one escaped exception must not silently stop the schedule
      logger.error("evaluation failed unexpectedly; the next one runs on schedule", t);
    }
  }
}
