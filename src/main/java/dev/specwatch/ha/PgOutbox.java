package dev.specwatch.ha;

import dev.specwatch.notify.Intent;
import dev.specwatch.notify.Outbox;
import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox in {@code sw_outbox}, shared by every replica. Every replica runs delivery workers; an
 * intent is claimed with {@code SELECT … FOR UPDATE SKIP LOCKED} and a lease of {@link #LEASE},
 * renewed while the attempt is in flight, so exactly one replica attempts it at a time, and the
 * intents of one alert stay in order (a stream whose head is claimed elsewhere waits). A replica
 * killed mid-send leaves its lease to expire; another then takes the intent over as an uncertain
 * attempt ({@link #tookOver}): Slack looks for the message before posting it again. The row's
 * primary key makes a transition queued twice one notification.
 *
 * <p>A delivery whose record cannot be written (the database went away) is remembered in memory,
 * never attempted again by this process, and its lease is kept so no other replica sends it; the
 * record is written when the database is back.
 */
public final class PgOutbox implements Outbox, AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(PgOutbox.class);

  /**
   * How long a claim holds without renewal: the 15 s call deadline of a receiver plus a margin.
   * Claims in flight are renewed every {@link #RENEW_EVERY}, so a slow record write does not lose
   * one, and a replica killed mid-send is retried elsewhere within this time (its attempt is then
   * an uncertain one: Slack looks for the message first).
   */
  static final Duration LEASE = Duration.ofSeconds(20);

  static final Duration RENEW_EVERY = Duration.ofSeconds(5);

  /** Delivered and failed rows are kept this long (re-queued duplicates stay recognisable). */
  static final Duration RETENTION = Duration.ofDays(7);

  private final Database db;
  private final Clock clock;
  private final String owner;

  /** Delivered, or given up, with the record not written yet: id → reason (null: delivered). */
  private final Map<String, String> unrecorded = new LinkedHashMap<>();

  private final Set<String> gone = new HashSet<>();

  /** Intents whose last claim took over a claim that ran out. */
  private final Set<String> tookOver = new HashSet<>();

  @Override
  public synchronized boolean tookOver(Intent intent) {
    return tookOver.remove(intent.outboxKey());
  }

  /** Claims that a reschedule or a recorded outcome cleared, so release writes nothing. */
  private final Set<String> cleared = new java.util.LinkedHashSet<>();

  private Instant lastPrune = Instant.EPOCH;

  public PgOutbox(Database db, Clock clock) {
    this.db = db;
    this.clock = clock;
    this.owner = db.instance();
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "specwatch-outbox-lease");
              t.setDaemon(true);
              return t;
            });
    var unused =
        renewer.scheduleWithFixedDelay(
            () -> {
              // An exception escaping a scheduled task cancels every later run: the claims would
              // then run out under deliveries in flight, and another replica re-send them.
              try {
                renew();
              } catch (RuntimeException e) {
                logger.error("renewing notification claims failed; tried again shortly", e);
              }
            },
            RENEW_EVERY.toMillis(),
            RENEW_EVERY.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /** This outbox's thread renewing its claims; stopped by {@link #close()} (the cluster's). */
  private final ScheduledExecutorService renewer;

  /**
   * Stops renewing claims. Called when the process lets go of the database, after the delivery
   * workers stopped: a claim still held then runs out and another replica retries it.
   */
  @Override
  public void close() {
    renewer.shutdownNow();
  }

  /** Claims this process holds, attempts in flight: renewed until released. */
  private final Set<String> held = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** Extends the claims in flight (every {@link #RENEW_EVERY}, and from tests). */
  void renew() {
    if (held.isEmpty()) {
      return;
    }
    db.attempt(
        "renewing notification claims",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "UPDATE sw_outbox SET claimed_until = ? WHERE claimed_by = ? AND id = ANY(?)"
                      + " AND status = 'pending'")) {
            s.setTimestamp(1, Timestamp.from(clock.instant().plus(LEASE)));
            s.setString(2, owner);
            s.setArray(3, c.createArrayOf("text", held.toArray()));
            return s.executeUpdate();
          }
        });
  }

  @Override
  public List<Intent> pendingOfThisProcessAlone() {
    return List.of();
  }

  @Override
  public void add(List<Intent> intents) throws IOException {
    if (intents.isEmpty()) {
      return;
    }
    db.call(
        "queueing notifications",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "INSERT INTO sw_outbox (id, notifier, status, created_at, next_attempt_at,"
                      + " intent) VALUES (?, ?, 'pending', ?, ?, ?) ON CONFLICT (id) DO NOTHING")) {
            for (Intent i : intents) {
              s.setString(1, i.outboxKey());
              s.setString(2, i.notifier());
              s.setTimestamp(3, Timestamp.from(i.createdAt()));
              s.setTimestamp(4, Timestamp.from(i.nextAttemptAt()));
              s.setString(5, DurableFiles.JSON.writeValueAsString(i));
              s.addBatch();
            }
            s.executeBatch();
          }
          return null;
        });
  }

  @Override
  public synchronized List<Intent> pending() throws IOException {
    flush();
    Instant now = clock.instant();
    List<Intent> out =
        db.call(
            "reading the outbox",
            c -> {
              if (lastPrune.plus(Duration.ofHours(1)).isBefore(now)) {
                prune(c, now);
              }
              List<Intent> rows = new ArrayList<>();
              try (PreparedStatement s =
                      c.prepareStatement(
                          "SELECT intent FROM sw_outbox WHERE status = 'pending'"
                              + " ORDER BY created_at, id");
                  ResultSet r = s.executeQuery()) {
                while (r.next()) {
                  rows.add(DurableFiles.JSON.readValue(r.getString(1), Intent.class));
                }
              }
              return rows;
            });
    out.removeIf(i -> gone.contains(i.outboxKey()));
    return out;
  }

  private void prune(Connection c, Instant now) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("DELETE FROM sw_outbox WHERE status <> 'pending' AND finished_at < ?")) {
      s.setTimestamp(1, Timestamp.from(now.minus(RETENTION)));
      s.executeUpdate();
    }
    lastPrune = now;
  }

  /**
   * Claims the intent for one attempt: false when another worker (of this replica or another) holds
   * it, when it was delivered or set aside since it was listed, when it is not due any more (its
   * attempt was rescheduled since), or when the database cannot be reached.
   */
  @Override
  public synchronized boolean claim(Intent intent) {
    if (gone.contains(intent.outboxKey())) {
      return false;
    }
    Instant now = clock.instant();
    try {
      return db.transaction(
          "claiming a notification",
          c -> {
            try (PreparedStatement s =
                c.prepareStatement(
                    "SELECT id, claimed_by FROM sw_outbox WHERE id = ? AND status = 'pending'"
                        + " AND next_attempt_at <= ?"
                        + " AND (claimed_until IS NULL OR claimed_until < ?)"
                        + " FOR UPDATE SKIP LOCKED")) {
              s.setString(1, intent.outboxKey());
              s.setTimestamp(2, Timestamp.from(now));
              s.setTimestamp(3, Timestamp.from(now));
              try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                  return false;
                }
                if (r.getString(2) != null) {
                  tookOver.add(
                      intent.outboxKey()); // a lease that ran out: its send's outcome is unknown
                }
              }
            }
            try (PreparedStatement s =
                c.prepareStatement(
                    "UPDATE sw_outbox SET claimed_by = ?, claimed_until = ? WHERE id = ?")) {
              s.setString(1, owner);
              s.setTimestamp(2, Timestamp.from(now.plus(LEASE)));
              s.setString(3, intent.outboxKey());
              s.executeUpdate();
            }
            held.add(intent.outboxKey());
            return true;
          });
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public synchronized void release(Intent intent) {
    if (unrecorded.containsKey(intent.outboxKey())) {
      return; // keep the lease until the outcome is written
    }
    held.remove(intent.outboxKey());
    if (cleared.remove(intent.outboxKey())) {
      return; // the outcome's own write cleared the claim: no second update
    }
    try {
      update(
          "releasing a notification",
          "UPDATE sw_outbox SET claimed_by = NULL, claimed_until = NULL"
              + " WHERE id = ? AND claimed_by = ?",
          intent.outboxKey(),
          owner);
    } catch (IOException e) {
      logger.debug(
          "notification {} not released, its lease runs out: {}", intent.id(), e.getMessage());
    }
  }

  @Override
  public synchronized void delivered(Intent intent) throws IOException {
    gone.add(intent.outboxKey());
    unrecorded.put(intent.outboxKey(), null);
    flush();
  }

  @Override
  public synchronized void reschedule(Intent intent) throws IOException {
    db.call(
        "rescheduling a notification",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "UPDATE sw_outbox SET intent = ?, next_attempt_at = ?, claimed_by = NULL,"
                      + " claimed_until = NULL WHERE id = ? AND status = 'pending'")) {
            s.setString(1, DurableFiles.JSON.writeValueAsString(intent));
            s.setTimestamp(2, Timestamp.from(intent.nextAttemptAt()));
            s.setString(3, intent.outboxKey());
            return s.executeUpdate();
          }
        });
    cleared.add(intent.outboxKey());
  }

  @Override
  public synchronized void failed(Intent intent, String reason) throws IOException {
    gone.add(intent.outboxKey());
    unrecorded.put(intent.outboxKey(), reason == null ? "" : reason);
    flush();
  }

  /** Writes the outcomes not recorded yet; throws while the database cannot take them. */
  private void flush() throws IOException {
    if (unrecorded.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    db.transaction(
        "recording deliveries",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "UPDATE sw_outbox SET status = ?, reason = ?, finished_at = ?,"
                      + " claimed_by = NULL, claimed_until = NULL WHERE id = ?")) {
            for (Map.Entry<String, String> e : unrecorded.entrySet()) {
              s.setString(1, e.getValue() == null ? "delivered" : "failed");
              s.setString(2, e.getValue());
              s.setTimestamp(3, Timestamp.from(now));
              s.setString(4, e.getKey());
              s.addBatch();
            }
            s.executeBatch();
          }
          return null;
        });
    cleared.addAll(unrecorded.keySet());
    held.removeAll(unrecorded.keySet());
    unrecorded.clear();
    // Outcomes recorded after an outage are released before: keep the set from growing.
    while (cleared.size() > 10_000) {
      cleared.remove(cleared.iterator().next());
    }
  }

  private void update(String doing, String sql, String... args) throws IOException {
    db.call(
        doing,
        c -> {
          try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
              s.setString(i + 1, args[i]);
            }
            return s.executeUpdate();
          }
        });
  }
}
