package dev.specwatch.ha;

import org.quartz.impl.jdbcjobstore.JobStoreTX;
import org.quartz.impl.jdbcjobstore.SchedulerStateRecord;

/**
 * Quartz's JDBC job store, with a replica counted as failed after missing two check-ins instead of
 * one check-in plus Quartz's fixed 7.5 s grace: with a 2 s check-in a killed replica's work moves
 * in about 4–6 s, not 10–12. A replica declared failed while still alive (a long GC pause) cannot
 * do harm: its evaluation's save is refused ({@link PgStateStore}) and its deliveries hold leases.
 */
// JobStoreTX overrides a generic method of JobStoreSupport with a raw one (Quartz's, not ours).
@SuppressWarnings("unchecked")
public class ClusterJobStore extends JobStoreTX {
  @Override
  protected long calcFailedIfAfter(SchedulerStateRecord rec) {
    long self = System.currentTimeMillis() - lastCheckin;
    return rec.getCheckinTimestamp()
        + Math.max(rec.getCheckinInterval(), self)
        + rec.getCheckinInterval();
  }
}
