package dev.specwatch.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.testing.LargeState;
import dev.specwatch.testing.PostgresDatabase;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The state of 10,000 recipes with learned change detection ({@link LargeState}, 27 MB of JSON) in
 * one PostgreSQL shard, saved and read back in a JVM with the shipped 128 MB heap. Before
 * 2026-12-06 the store built a Java string of it through the writer's chars (three times its size)
 * and this JVM died of OutOfMemoryError on the save.
 */
class LargePgStateIT {

  @Test
  void aShardOfTenThousandLearnedRecipesIsSavedAndReadBackInTheShippedHeap() throws Exception {
    try (PostgresDatabase pg = PostgresDatabase.create()) {
      LargeState.roundTripInChildJvm(128, 180, Child.class, pg.url());
      assertThat(Long.parseLong(pg.queryOne("SELECT length(state) FROM sw_alert_state")))
          .isGreaterThan(20L << 20);
    }
  }

  /** Saves the state in shard 0 of the database at {@code args[0]}, reads it back, compares. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      try (Database db =
          Database.open(
              new SpecwatchConfig.Database(
                  args[0], Optional.of("postgres"), Optional.empty(), 4, Duration.ofSeconds(2)),
              "large")) {
        PgStateStore store = new PgStateStore(db, 0, Clock.systemUTC());
        store.load();
        AlertState state = LargeState.of(10_000);
        store.save(state);
        AlertState loaded = new PgStateStore(db, 0, Clock.systemUTC()).load();
        System.out.println(loaded.equals(state) ? "read back equal" : "read back different");
      }
    }
  }
}
