package dev.specwatch.ha;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.store.DatabaseException;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared PostgreSQL database of {@code state.backend: postgres}: a HikariCP pool, the schema
 * migrated by Flyway on start (PostgreSQL advisory lock: replicas starting together migrate once),
 * and the {@link StateHealth} every statement reports to. Connections time out in seconds so an
 * unreachable database makes the replica not ready instead of hanging it.
 */
public final class Database implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(Database.class);

  /** What runs in one connection (or one transaction). */
  public interface Work<T> {
    T run(Connection c) throws SQLException, IOException;
  }

  private final HikariDataSource pool;
  private final String url;
  private final String instance;
  private final StateHealth health;

  /** Start times ({@link System#nanoTime}) of the statements in flight, by call. */
  private final java.util.concurrent.ConcurrentHashMap<Long, Long> inFlight =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final java.util.concurrent.atomic.AtomicLong calls =
      new java.util.concurrent.atomic.AtomicLong();

  /** A statement in flight longer than this makes the database "stalled" (not ready). */
  static final java.time.Duration STALLED_AFTER = java.time.Duration.ofSeconds(10);

  private Database(HikariDataSource pool, String url, String instance) {
    this.pool = pool;
    this.url = url;
    this.instance = instance;
    this.health =
        new StateHealth(
            url,
            "database " + url + " is unreachable",
            "database " + url + " is reachable again",
            () -> call("checking the database", c -> c.isValid(3)));
    this.health.stalledWhen(
        () -> {
          long now = System.nanoTime();
          long oldest = inFlight.values().stream().mapToLong(t -> now - t).max().orElse(0);
          return oldest > STALLED_AFTER.toNanos()
              ? Optional.of(
                  "database "
                      + url
                      + " is stalled: a statement has waited "
                      + oldest / 1_000_000_000L
                      + " s (a lock, or a server that does not answer); evaluation waits with it")
              : Optional.empty();
        });
  }

  /**
   * Connects and migrates the schema.
   *
   * @throws IOException when the database cannot be reached or migrated (the message says why)
   */
  public static Database open(SpecwatchConfig.Database settings, String instance)
      throws IOException {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("specwatch-db");
    hc.setJdbcUrl(settings.url());
    settings.user().ifPresent(hc::setUsername);
    settings.password().ifPresent(p -> hc.setPassword(p.reveal()));
    hc.setMaximumPoolSize(12);
    hc.setMinimumIdle(2);
    hc.setConnectionTimeout(3_000);
    hc.setValidationTimeout(2_000);
    hc.setInitializationFailTimeout(-1);
    hc.addDataSourceProperty("connectTimeout", "3");
    hc.addDataSourceProperty("socketTimeout", "30");
    hc.addDataSourceProperty("tcpKeepAlive", "true");
    hc.addDataSourceProperty("ApplicationName", "specwatch " + instance);
    HikariDataSource pool = new HikariDataSource(hc);
    Database db = new Database(pool, settings.safeUrl(), instance);
    try {
      firstConnection(pool, db.url);
      db.migrate();
    } catch (IOException | RuntimeException e) {
      pool.close();
      throw e;
    }
    return db;
  }

  /**
   * How long a start waits for the database: one that comes up a few seconds after specwatch (a
   * compose file, a host booting, a loaded machine) is waited for, not a crash loop; past this the
   * start fails with why (docs/OPERATIONS.md).
   */
  static final java.time.Duration START_WAIT = java.time.Duration.ofSeconds(15);

  private static void firstConnection(HikariDataSource pool, String url) throws IOException {
    long deadline = System.nanoTime() + START_WAIT.toNanos();
    for (int attempt = 1; ; attempt++) {
      try (Connection c = pool.getConnection()) {
        c.isValid(3);
        return;
      } catch (SQLException e) {
        if (System.nanoTime() >= deadline) {
          throw new DatabaseException("cannot connect to database " + url, e);
        }
        if (attempt == 1) {
          // The cause is in the error if the wait runs out; a driver's message is not logged here.
          logger.warn(
              "database {} is not reachable yet; waiting up to {} s", url, START_WAIT.toSeconds());
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new DatabaseException("cannot connect to database " + url + ": interrupted", e);
        }
      }
    }
  }

  /** Applies pending migrations; a second run (or a replica's) finds none and changes nothing. */
  public int migrate() throws IOException {
    try {
      MigrateResult result =
          Flyway.configure()
              .dataSource(pool)
              .locations("classpath:db/migration")
              .table("sw_schema_history")
              .baselineOnMigrate(false)
              .load()
              .migrate();
      if (result.migrationsExecuted > 0) {
        logger.info(
            "database {}: schema migrated to version {} ({} migration(s))",
            url,
            result.targetSchemaVersion,
            result.migrationsExecuted);
      }
      return result.migrationsExecuted;
    } catch (FlywayException e) {
      SQLException sql = sqlCause(e);
      throw sql != null
          ? new DatabaseException("cannot migrate database " + url, sql)
          : new IOException("cannot migrate database " + url + ": " + e.getMessage());
    }
  }

  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        return s;
      }
    }
    return null;
  }

  /** Runs {@code work} on a pooled connection in auto-commit; failures reach the health. */
  public <T> T call(String doing, Work<T> work) throws IOException {
    long started = System.nanoTime();
    long id = calls.incrementAndGet();
    inFlight.put(id, started);
    try (Connection c = pool.getConnection()) {
      T result = work.run(c);
      health.ok(started);
      return result;
    } catch (SQLException e) {
      if (connectionLost(e)) {
        // Its siblings in the pool were cut too (a server shutting down terminates every
        // backend, not all at the same instant): retire them all before the failure is noted, so
        // an operation begun after it runs on a connection opened after it, and its success
        // really shows the database is back (StateHealth.ok(started)).
        var bean = pool.getHikariPoolMXBean();
        if (bean != null) {
          bean.softEvictConnections();
        }
      }
      DatabaseException failure = new DatabaseException(doing, e);
      health.failed(failure);
      throw failure;
    } finally {
      inFlight.remove(id);
    }
  }

  /**
   * Whether the connection (not the statement) failed: SQL state class 08 (connection exception),
   * 57P (operator intervention: shutdown, crash), or no connection at all.
   */
  static boolean connectionLost(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("08") || state.startsWith("57P")) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Runs {@code work} as {@link #call} does, for a write whose failure needs no handling of its own
   * (a lease that runs out by itself, an informational record): the failure is reported to the
   * database's health by the call, and logged here at debug level.
   *
   * @return whether the work ran
   */
  public boolean attempt(String doing, Work<?> work) {
    try {
      call(doing, work);
      return true;
    } catch (IOException e) {
      logger.debug("{} failed (reported to the database health): {}", doing, e.getMessage());
      return false;
    }
  }

  /**
   * Runs {@code work} in one transaction, committed when it returns, rolled back when it throws.
   */
  public <T> T transaction(String doing, Work<T> work) throws IOException {
    return call(
        doing,
        c -> {
          c.setAutoCommit(false);
          try {
            T result = work.run(c);
            c.commit();
            return result;
          } catch (SQLException | IOException | RuntimeException e) {
            try {
              c.rollback();
            } catch (SQLException rollback) {
              // The connection is gone: the server rolls the transaction back. The caller sees
              // the first failure, with this one attached.
              e.addSuppressed(rollback);
            }
            throw e;
          } finally {
            try {
              c.setAutoCommit(true);
            } catch (SQLException broken) {
              logger.debug("{}: connection left broken, the pool evicts it: {}", doing, broken);
            }
          }
        });
  }

  public DataSource dataSource() {
    return pool;
  }

  public StateHealth health() {
    return health;
  }

  /** This replica's name in the cluster: host and process id. */
  public String instance() {
    return instance;
  }

  /** The URL without parameters. */
  public String url() {
    return url;
  }

  /** A name for this process that is unique in the cluster: {@code host-pid}. */
  public static String defaultInstance() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return host + "-" + ProcessHandle.current().pid();
  }

  @Override
  public void close() {
    pool.close();
  }
}
