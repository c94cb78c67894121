package dev.specwatch.notify;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The Slack message of each firing alert, {@code (channel, ts)}, in {@code
 * <state.dir>/slack-messages.json}, so a resolve after a restart updates the original message.
 */
public final class SlackThreadStore {
  /** Where an alert's message lives; {@code lastPostAt} drives repeats. */
  public record Thread(String channel, String ts, Instant lastPostAt) {}

  private final JsonMapStore<Thread> store;

  public SlackThreadStore(Path stateDir) throws IOException {
    this.store = new JsonMapStore<>(stateDir.resolve("slack-messages.json"), Thread.class);
  }

  public Optional<Thread> get(String alertId) {
    return store.get(alertId);
  }

  public Map<String, Thread> all() {
    return store.all();
  }

  public void put(String alertId, Thread thread) {
    store.put(alertId, thread);
  }

  public void remove(String alertId) {
    store.remove(alertId);
  }
}
