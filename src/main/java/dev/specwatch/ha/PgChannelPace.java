package dev.specwatch.ha;

import dev.specwatch.notify.ChannelPace;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link ChannelPace} of a cluster: a row of {@code sw_slack_pace} per channel, taken by one
 * statement (an upsert that only wins when nobody holds the channel and its pace has passed), so
 * replicas write to a channel one at a time and a second apart, and a 429's Retry-After holds them
 * all. While the database is unreachable nothing is taken (the outbox is there too): ask again in a
 * second.
 */
final class PgChannelPace implements ChannelPace {
  private static final Duration POLL_WHILE_HELD = Duration.ofMillis(100);

  private final Database db;
  private final AtomicLong takes = new AtomicLong();

  /** The holder's name of each channel this process holds: its release must be its own. */
  private final java.util.Map<String, String> held = new java.util.concurrent.ConcurrentHashMap<>();

  PgChannelPace(Database db) {
    this.db = db;
  }

  @Override
  public Optional<Instant> take(String channel, Instant now, Duration lease) {
    String holder = db.instance() + "#" + takes.incrementAndGet();
    try {
      return db.call(
          "taking the Slack channel " + channel,
          c -> {
            try (PreparedStatement s =
                c.prepareStatement(
                    "INSERT INTO sw_slack_pace AS p (channel, holder, held_until, not_before)"
                        + " VALUES (?, ?, ?, ?) ON CONFLICT (channel) DO UPDATE"
                        + " SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until"
                        + " WHERE (p.held_until IS NULL OR p.held_until <= ?)"
                        + " AND p.not_before <= ? RETURNING channel")) {
              s.setString(1, channel);
              s.setString(2, holder);
              s.setTimestamp(3, Timestamp.from(now.plus(lease)));
              s.setTimestamp(4, Timestamp.from(now));
              s.setTimestamp(5, Timestamp.from(now));
              s.setTimestamp(6, Timestamp.from(now));
              try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                  held.put(channel, holder);
                  return Optional.<Instant>empty();
                }
              }
            }
            try (PreparedStatement s =
                c.prepareStatement(
                    "SELECT held_until, not_before FROM sw_slack_pace WHERE channel = ?")) {
              s.setString(1, channel);
              try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                  return Optional.of(now.plus(POLL_WHILE_HELD));
                }
                Timestamp heldUntil = r.getTimestamp(1);
                Instant notBefore = r.getTimestamp(2).toInstant();
                boolean busy = heldUntil != null && heldUntil.toInstant().isAfter(now);
                // Held: its holder frees it in about a call's time, not at the lease's end.
                return Optional.of(busy ? now.plus(POLL_WHILE_HELD) : notBefore);
              }
            }
          });
    } catch (IOException e) {
      return Optional.of(now.plusSeconds(1)); // reported to the database's health by the call
    }
  }

  @Override
  public void release(String channel, Instant next) {
    String holder = held.remove(channel);
    if (holder == null) {
      return;
    }
    db.attempt(
        "releasing the Slack channel " + channel,
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "UPDATE sw_slack_pace SET holder = NULL, held_until = NULL, not_before = ?"
                      + " WHERE channel = ? AND holder = ?")) {
            s.setTimestamp(1, Timestamp.from(next));
            s.setString(2, channel);
            s.setString(3, holder);
            return s.executeUpdate();
          }
        });
  }
}
