package dev.specwatch.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class DatabaseTest {
  @Test
  void aLostConnectionIsToldFromAFailedStatement() {
    // pgjdbc: 08006 connection failure, 08003 "this connection has been closed"; the server:
    // 57P01 "terminating connection due to administrator command", 57P03 "shutting down".
    assertThat(Database.connectionLost(new SQLException("gone", "08006"))).isTrue();
    assertThat(Database.connectionLost(new SQLException("closed", "08003"))).isTrue();
    assertThat(Database.connectionLost(new SQLException("admin", "57P01"))).isTrue();
    assertThat(Database.connectionLost(new SQLException("starting", "57P03"))).isTrue();
    assertThat(Database.connectionLost(new SQLTransientConnectionException("pool timeout")))
        .isTrue();
    assertThat(
            Database.connectionLost(
                new SQLException("wrapped", null, new SQLException("cut", "08006"))))
        .isTrue();
    // a statement's own failure leaves the other connections alone
    assertThat(Database.connectionLost(new SQLException("duplicate key", "23505"))).isFalse();
    assertThat(Database.connectionLost(new SQLException("lock timeout", "55P03"))).isFalse();
    assertThat(Database.connectionLost(new SQLException("no state"))).isFalse();
  }
}
