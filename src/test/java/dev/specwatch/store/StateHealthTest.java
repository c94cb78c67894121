package dev.specwatch.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The database's health during a shutdown: an operation that began before the failure and succeeded
 * after it does not announce a recovery; one that began after does.
 */
class StateHealthTest {
  @Test
  void onlyASuccessThatBeganAfterTheFailureEndsTheOutage() {
    StateHealth health =
        new StateHealth(
            "db", "database db is unreachable", "database db is reachable again", () -> {});
    long before = System.nanoTime();
    health.failed(new IOException("terminating connection due to administrator command"));
    health.ok(before);
    assertThat(health.problem()).as("an operation already under way").isPresent();
    health.ok(System.nanoTime());
    assertThat(health.problem()).isEmpty();
    assertThat(health.failures()).isEqualTo(1);
  }
}
