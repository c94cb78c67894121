package dev.specwatch.notify;

import dev.specwatch.alerting.Transition;
import dev.specwatch.alerting.TransitionHistory;
import dev.specwatch.notify.slack.SlackGroup;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.store.KeyedStore;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable state of notifications in one state directory: the outbox, the Slack message map and
 * the firing alerts to repeat. Opened once per process and shared by the notification services of
 * successive configs, so a reload sees what the previous config's workers are still sending.
 */
public final class NotificationStores {
  private static final Logger logger = LoggerFactory.getLogger(NotificationStores.class);

  private final Outbox outbox;
  private final SlackThreadStore threads;
  private final KeyedStore<Transition> firing;
  private final StateHealth health;
  private final KeyedStore<SlackGroup> slackGroups;
  private final ChannelPace channelPace;

  /**
   * Stores kept elsewhere (the shared database of {@code state.backend: postgres}).
   *
   * @param firing alerts firing now, by id (their repeats)
   * @param slackGroups Slack's groups of storms, by group
   * @param channelPace who writes to a Slack channel next, across every process sharing the stores
   */
  public NotificationStores(
      Outbox outbox,
      SlackThreadStore threads,
      KeyedStore<Transition> firing,
      KeyedStore<SlackGroup> slackGroups,
      ChannelPace channelPace,
      StateHealth health) {
    this.outbox = outbox;
    this.threads = threads;
    this.firing = firing;
    this.slackGroups = slackGroups;
    this.channelPace = channelPace;
    this.health = health;
  }

  /**
   * Opens (or creates) the stores; damaged files are moved aside and reported to {@code health}.
   */
  public static NotificationStores open(Path stateDir, StateHealth health, Clock clock)
      throws IOException {
    TransitionHistory history = new TransitionHistory(stateDir);
    FileOutbox outbox = new FileOutbox(stateDir, history::bySequence, health, clock);
    SlackThreadStore threads = new SlackThreadStore(stateDir, health, clock);
    JsonMapStore<Transition> firing =
        new JsonMapStore<>(
            stateDir.resolve("firing.json"),
            Transition.class,
            health,
            clock,
            "rebuilt from the transition history (history.jsonl)");
    if (firing.recovered()) {
      int rebuilt = 0;
      for (Map.Entry<String, Transition> e : history.latestByAlert().entrySet()) {
        if (e.getValue().kind() == Transition.Kind.FIRING && !e.getValue().silenced()) {
          firing.put(e.getKey(), e.getValue());
          rebuilt++;
        }
      }
      logger.warn("rebuilt {} firing alert(s) of firing.json from history.jsonl", rebuilt);
    }
    JsonMapStore<SlackGroup> groups =
        new JsonMapStore<>(
            stateDir.resolve("slack-groups.json"),
            SlackGroup.class,
            health,
            clock,
            "the group messages of storms are forgotten: their members' resolves are posted one"
                + " by one");
    return new NotificationStores(outbox, threads, firing, groups, ChannelPace.local(), health);
  }

  public Outbox outbox() {
    return outbox;
  }

  public SlackThreadStore threads() {
    return threads;
  }

  public KeyedStore<Transition> firing() {
    return firing;
  }

  public KeyedStore<SlackGroup> slackGroups() {
    return slackGroups;
  }

  ChannelPace channelPace() {
    return channelPace;
  }

  public StateHealth health() {
    return health;
  }

  /** Writes what failed saves left in memory; true when everything is on disk. */
  public boolean flush() {
    boolean threadsOk = threads.flush();
    boolean firingOk = firing.flush();
    boolean groupsOk = slackGroups.flush();
    return threadsOk && firingOk && groupsOk;
  }
}
