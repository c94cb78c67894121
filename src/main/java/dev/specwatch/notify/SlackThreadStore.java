package dev.specwatch.notify;

import dev.specwatch.store.KeyedStore;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The Slack message of each firing alert, {@code (channel, ts)}, in {@code
 * <state.dir>/slack-messages.json}, so a resolve after a restart updates the original message.
 */
public final class SlackThreadStore {
  /**
   * Where an alert's message lives; {@code lastPostAt} drives repeats.
   *
   * @param acknowledged who acknowledged it from Slack and when, in words: no more reminders; null
   *     while nobody has
   * @param silence the silence pressed "until resolved", expired when the alert resolves; or null
   * @param parent the group message whose thread holds this alert's message ({@code ts}, a reply);
   *     null when the alert has a message of its own
   */
  public record SlackThread(
      String channel,
      String ts,
      Instant lastPostAt,
      String acknowledged,
      String silence,
      String parent) {
    public SlackThread(String channel, String ts, Instant lastPostAt) {
      this(channel, ts, lastPostAt, null, null, null);
    }

    public SlackThread(
        String channel, String ts, Instant lastPostAt, String acknowledged, String silence) {
      this(channel, ts, lastPostAt, acknowledged, silence, null);
    }

    /** A grouped alert's detail reply {@code ts} in the thread of its group's message. */
    static SlackThread reply(String channel, String ts, String parent, Instant postedAt) {
      return new SlackThread(channel, ts, postedAt, null, null, parent);
    }

    /** Where replies go: the thread of the alert's own message, or of its group's. */
    public String threadTs() {
      return parent == null ? ts : parent;
    }

    public SlackThread acknowledged(String by) {
      return new SlackThread(channel, ts, lastPostAt, by, silence, parent);
    }

    public SlackThread untilResolved(String silenceId) {
      return new SlackThread(channel, ts, lastPostAt, acknowledged, silenceId, parent);
    }

    SlackThread postedAt(Instant at) {
      return new SlackThread(channel, ts, at, acknowledged, silence, parent);
    }
  }

  private final KeyedStore<SlackThread> store;

  /** A store of its own (commands and tests); the daemon shares one per state directory. */
  public SlackThreadStore(Path stateDir) throws IOException {
    this(stateDir, new StateHealth(stateDir), Clock.systemUTC());
  }

  public SlackThreadStore(Path stateDir, StateHealth health, Clock clock) throws IOException {
    this.store =
        new JsonMapStore<>(
            stateDir.resolve("slack-messages.json"),
            SlackThread.class,
            health,
            clock,
            "the Slack messages of alerts firing now are forgotten: their repeats stop and their"
                + " resolves are posted as new messages instead of updating the red ones");
  }

  /** Threads kept elsewhere (the shared database). */
  public SlackThreadStore(KeyedStore<SlackThread> store) {
    this.store = store;
  }

  public Optional<SlackThread> get(String alertId) {
    return store.get(alertId);
  }

  public Map<String, SlackThread> all() {
    return store.all();
  }

  public void put(String alertId, SlackThread thread) {
    store.put(alertId, thread);
  }

  public void remove(String alertId) {
    store.remove(alertId);
  }

  /** Writes what a failed save left in memory; returns whether the file is up to date. */
  boolean flush() {
    return store.flush();
  }
}
