package dev.specwatch.notify.slack;

import dev.specwatch.notify.JsonMapStore;
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
 *
 * <p>Each Slack notifier sees only its own messages ({@link #of}): keys are {@code
 * <notifier>|<alert id>}, so two notifiers (two channels, two workspaces) never edit or reply to
 * each other's messages. Files written before keys had a notifier hold the alert id alone; the
 * first Slack notifier with a bot token reads those too, and replaces each on its next write.
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
   * @param silenced whether it was silenced from Slack: its message shows no buttons any more
   */
  public record SlackThread(
      String channel,
      String ts,
      Instant lastPostAt,
      String acknowledged,
      String silence,
      String parent,
      boolean silenced) {
    public SlackThread(String channel, String ts, Instant lastPostAt) {
      this(channel, ts, lastPostAt, null, null, null, false);
    }

    /** A grouped alert's detail reply {@code ts} in the thread of its group's message. */
    static SlackThread reply(String channel, String ts, String parent, Instant postedAt) {
      return new SlackThread(channel, ts, postedAt, null, null, parent, false);
    }

    /** Where replies go: the thread of the alert's own message, or of its group's. */
    public String threadTs() {
      return parent == null ? ts : parent;
    }

    public SlackThread acknowledged(String by) {
      return new SlackThread(channel, ts, lastPostAt, by, silence, parent, silenced);
    }

    /** Silenced from Slack, as {@code by} says (which also stops the reminders). */
    public SlackThread silencedBy(String by) {
      return new SlackThread(channel, ts, lastPostAt, by, silence, parent, true);
    }

    public SlackThread untilResolved(String silenceId) {
      return new SlackThread(channel, ts, lastPostAt, acknowledged, silenceId, parent, silenced);
    }

    SlackThread postedAt(Instant at) {
      return new SlackThread(channel, ts, at, acknowledged, silence, parent, silenced);
    }
  }

  private final KeyedStore<SlackThread> store;

  /** {@code <notifier>|}, or empty: every key as stored (state import, tests). */
  private final String scope;

  /** Whether keys of before the notifier scope (the alert id alone) are this notifier's. */
  private final boolean legacy;

  /** A store of its own (commands and tests); the daemon shares one per state directory. */
  public SlackThreadStore(Path stateDir) throws IOException {
    this(stateDir, new StateHealth(stateDir), Clock.systemUTC());
  }

  public SlackThreadStore(Path stateDir, StateHealth health, Clock clock) throws IOException {
    this(
        new JsonMapStore<>(
            stateDir.resolve("slack-messages.json"),
            SlackThread.class,
            health,
            clock,
            "the Slack messages of alerts firing now are forgotten: their repeats stop and their"
                + " resolves are posted as new messages instead of updating the red ones"));
  }

  /** Threads kept elsewhere (the shared database). */
  public SlackThreadStore(KeyedStore<SlackThread> store) {
    this(store, "", false);
  }

  private SlackThreadStore(KeyedStore<SlackThread> store, String scope, boolean legacy) {
    this.store = store;
    this.scope = scope;
    this.legacy = legacy;
  }

  /**
   * The messages of one notifier.
   *
   * @param legacyOwner whether this notifier also owns keys written before the notifier scope
   */
  public SlackThreadStore of(String notifier, boolean legacyOwner) {
    return new SlackThreadStore(store, notifier + "|", legacyOwner);
  }

  public Optional<SlackThread> get(String alertId) {
    Optional<SlackThread> mine = store.get(scope + alertId);
    return mine.isEmpty() && legacy ? store.get(alertId) : mine;
  }

  /** Every message as stored, by key ({@code <notifier>|<alert id>}): state import, tests. */
  public Map<String, SlackThread> all() {
    return store.all();
  }

  public void put(String alertId, SlackThread thread) {
    store.put(scope + alertId, thread);
    if (legacy) {
      store.remove(alertId);
    }
  }

  public void remove(String alertId) {
    store.remove(scope + alertId);
    if (legacy) {
      store.remove(alertId);
    }
  }

  /** Writes what a failed save left in memory; returns whether the file is up to date. */
  public boolean flush() {
    return store.flush();
  }
}
