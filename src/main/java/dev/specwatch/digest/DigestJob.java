package dev.specwatch.digest;

import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The weekly digest, fired by a Quartz cron trigger in digest.time_zone. */
@DisallowConcurrentExecution
public final class DigestJob implements Job {
  private static final Logger logger = LoggerFactory.getLogger(DigestJob.class);
  public static final String CONTEXT_KEY = "specwatch.digest";

  @Override
  public void execute(JobExecutionContext context) {
    try {
      DigestService service = (DigestService) context.getScheduler().getContext().get(CONTEXT_KEY);
      if (service != null) {
        service.sendIfDue();
      }
    } catch (Throwable t) { // must not stop the schedule
      logger.error("digest job failed unexpectedly", t);
    }
  }
}
