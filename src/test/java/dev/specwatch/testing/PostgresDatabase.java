package dev.specwatch.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * A database of its own on the machine's PostgreSQL (127.0.0.1:5432, trust authentication, user
 * postgres; {@code make deps} installs and starts it): created with a unique name, dropped (with
 * its connections) on close.
 */
public final class PostgresDatabase implements AutoCloseable {
  public static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";

  private final String name;

  private PostgresDatabase(String name) {
    this.name = name;
  }

  public static PostgresDatabase create() throws SQLException {
    String name = "sw_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    admin("CREATE DATABASE " + name);
    return new PostgresDatabase(name.toLowerCase(Locale.ROOT));
  }

  public String name() {
    return name;
  }

  public String url() {
    return SERVER + name;
  }

  /** Runs one statement in the test database. */
  public void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(), "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** The first column of the first row of a query, as text. */
  public String queryOne(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(), "postgres", "");
        Statement s = c.createStatement();
        var r = s.executeQuery(sql)) {
      return r.next() ? r.getString(1) : null;
    }
  }

  private static void admin(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(SERVER + "postgres", "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public void close() throws SQLException {
    admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }
}
