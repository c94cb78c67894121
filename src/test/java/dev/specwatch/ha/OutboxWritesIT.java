package dev.specwatch.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Secret;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.DeliveryListener;
import dev.specwatch.notify.DeliveryWorker;
import dev.specwatch.notify.Intent;
import dev.specwatch.notify.slack.SlackMessages;
import dev.specwatch.notify.slack.SlackNotifier;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.MutableClock;
import dev.specwatch.testing.PostgresDatabase;
import dev.specwatch.testing.Transitions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes to {@code sw_outbox} grow with the deliveries, not with the passes that wait on Slack's
 * pacing (one post a second a channel): a storm of 30 alerts into one channel, counted by a trigger
 * on the table. The pacing used to be written into the row at every paced attempt, and every
 * attempt released a claim its outcome had already cleared.
 */
class OutboxWritesIT {
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  @TempDir Path state;

  @Test
  void aStormIntoOneChannelCostsAFewRowUpdatesPerNotification() throws Exception {
    try (PostgresDatabase pg = PostgresDatabase.create();
        FakeSlackApi slack = new FakeSlackApi()) {
      MutableClock clock = new MutableClock(T0);
      Database db =
          Database.open(
              new SpecwatchConfig.Database(
                  pg.url(), Optional.of("postgres"), Optional.empty(), 4, Duration.ofSeconds(2)),
              "w");
      try (db) {
        pg.execute("CREATE TABLE upd (n bigint)");
        pg.execute("INSERT INTO upd VALUES (0)");
        pg.execute(
            "CREATE FUNCTION count_upd() RETURNS trigger AS $$ BEGIN UPDATE upd SET n = n + 1;"
                + " RETURN NEW; END $$ LANGUAGE plpgsql");
        pg.execute(
            "CREATE TRIGGER counted AFTER UPDATE ON sw_outbox FOR EACH ROW"
                + " EXECUTE FUNCTION count_upd()");
        PgOutbox outbox = new PgOutbox(db, clock);
        SlackNotifier notifier =
            new SlackNotifier(
                new NotifierConfig.Slack(
                    "slack",
                    Optional.of(Secret.of("xoxb-outbox-writes")),
                    Optional.empty(),
                    Optional.of("#mtp-alerts"),
                    Optional.of(slack.apiUrl()),
                    Duration.ofHours(4)),
                new SlackMessages.Urls(Optional.empty(), Optional.empty()),
                new SlackThreadStore(state),
                clock);
        DeliveryWorker worker =
            new DeliveryWorker(
                outbox, Map.of("slack", notifier), clock, new Random(1), new DeliveryListener() {});
        int n = 30;
        List<Intent> storm = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          Transition t =
              Transitions.acceptance(
                  i + 1, "r" + i + "/acceptance_rate", Transition.Kind.FIRING, T0);
          storm.add(Intent.of("slack", Intent.Kind.FIRING, t, T0));
        }
        outbox.add(storm);
        for (int pass = 0; pass < 3000 && !outbox.pending().isEmpty(); pass++) {
          worker.runOnce();
          clock.advance(Duration.ofMillis(100));
        }
        assertThat(outbox.pending()).as("all delivered").isEmpty();
        assertThat(slack.calls()).hasSize(n);
        long updates = Long.parseLong(pg.queryOne("SELECT n FROM upd"));
        System.out.println("outbox row updates for " + n + " notifications: " + updates);
        // Per notification: its claim and its outcome, and at most one paced attempt's claim and
        // release while it waits its turn; plus the lease renewals of the one claim in flight
        // (one every 5 s of the test's real run time: a few at most).
        assertThat(updates)
            .as("row updates for %d notifications", n)
            .isBetween((long) n, 4L * n + 10);
      }
    }
  }
}
