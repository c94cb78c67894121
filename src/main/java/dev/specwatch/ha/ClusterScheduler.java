package dev.specwatch.ha;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.utils.ConnectionProvider;
import org.quartz.utils.DBConnectionManager;

/**
 * A Quartz scheduler on the clustered JDBC job store in the shared database: every job runs on
 * exactly one replica at a time, and a replica that stops checking in has its jobs taken over.
 */
public final class ClusterScheduler {
  /** The scheduler's name in {@code qrtz_*} tables: one cluster per database. */
  public static final String NAME = "specwatch";

  private static final String DATA_SOURCE = "specwatch";

  private ClusterScheduler() {}

  /** A scheduler (not started) for this replica. */
  public static Scheduler create(Database db, Duration checkinInterval, int threads)
      throws SchedulerException {
    DataSource ds = db.dataSource();
    DBConnectionManager.getInstance()
        .addConnectionProvider(
            DATA_SOURCE,
            new ConnectionProvider() {
              @Override
              public Connection getConnection() throws SQLException {
                return ds.getConnection();
              }

              @Override
              public void shutdown() {
                // the pool belongs to the Database
              }

              @Override
              public void initialize() {
                // the pool is open already
              }
            });
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", NAME);
    p.setProperty("org.quartz.scheduler.instanceId", db.instance());
    p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    p.setProperty("org.quartz.scheduler.idleWaitTime", "5000");
    p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(threads));
    p.setProperty("org.quartz.threadPool.threadNamePrefix", "specwatch-quartz");
    p.setProperty("org.quartz.threadPool.makeThreadsDaemons", "true");
    p.setProperty("org.quartz.jobStore.class", ClusterJobStore.class.getName());
    p.setProperty(
        "org.quartz.jobStore.driverDelegateClass",
        "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
    p.setProperty("org.quartz.jobStore.dataSource", DATA_SOURCE);
    p.setProperty("org.quartz.jobStore.tablePrefix", "QRTZ_");
    p.setProperty("org.quartz.jobStore.isClustered", "true");
    p.setProperty(
        "org.quartz.jobStore.clusterCheckinInterval", Long.toString(checkinInterval.toMillis()));
    p.setProperty("org.quartz.jobStore.misfireThreshold", "2000");
    p.setProperty("org.quartz.jobStore.dbRetryInterval", "2000");
    p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
    p.setProperty("org.quartz.jobStore.useProperties", "true");
    return new StdSchedulerFactory(p).getScheduler();
  }
}
