package dev.specwatch.backend;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.StateStore;
import dev.specwatch.alerting.Transition;
import dev.specwatch.detect.DropTest;
import dev.specwatch.digest.DigestLedger;
import dev.specwatch.notify.Intent;
import dev.specwatch.notify.NotificationStores;
import dev.specwatch.notify.slack.SlackThreadStore;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Moves a state directory ({@code state.backend: file}) into the shared database, so a single
 * daemon can become a cluster without its firing alerts notifying again: alerts, learned models and
 * queued transitions go to the shard of their recipe, and the history, silences, pending
 * notifications, Slack messages, firing alerts and the digest ledger are copied.
 */
public final class StateImport {
  /** What was imported. */
  public record Summary(
      int alerts,
      int firing,
      int shards,
      int transitions,
      int silences,
      int notifications,
      int slackMessages,
      int digestWeeks) {}

  private StateImport() {}

  /**
   * @throws IllegalStateException when the database holds alert state already (unless {@code
   *     force}: then the shards' states are replaced)
   */
  public static Summary run(StateBackend files, StateBackend database, boolean force)
      throws IOException {
    int existing = database.shardsFrom(0).size();
    if (existing > 0 && !force) {
      throw new IllegalStateException(
          "the database has alert state already ("
              + existing
              + " shard(s)); importing would replace it: add --force to do so");
    }
    int shards = database.shards();
    AlertState file = files.alertState(0).load();
    List<AlertState> split = split(file, shards);
    for (int i = 0; i < shards; i++) {
      StateStore store = database.alertState(i);
      store.load(); // the row's version, so the save replaces it
      store.save(split.get(i));
    }
    int firing = 0;
    for (ActiveAlert a : file.alerts().values()) {
      firing += a.phase() == AlertPhase.FIRING ? 1 : 0;
    }
    List<Transition> history = files.history().between(Instant.MIN, Instant.MAX);
    database.history().append(history);
    List<Silence> silences = files.silences().load();
    Set<String> have = new HashSet<>();
    database.silences().load().forEach(s -> have.add(s.id()));
    for (Silence s : silences) {
      if (!have.contains(s.id())) {
        database.silences().add(s);
      }
    }
    NotificationStores from = files.notifications();
    NotificationStores to = database.notifications();
    List<Intent> pending = from.outbox().pending();
    to.outbox().add(pending);
    Map<String, SlackThreadStore.SlackThread> threads = from.threads().all();
    threads.forEach(to.threads()::put);
    // A storm's group messages, so the resolves of their members edit them, not post anew.
    from.slackGroups().all().forEach(to.slackGroups()::put);
    from.firing().all().forEach(to.firing()::put);
    if (!to.flush()) {
      throw new IOException("cannot write to the database");
    }
    Map<String, DigestLedger.SentRecord> weeks = files.digestLedger().sent();
    DigestLedger ledger = database.digestLedger();
    for (Map.Entry<String, DigestLedger.SentRecord> e : weeks.entrySet()) {
      ledger.record(e.getKey(), e.getValue());
    }
    return new Summary(
        file.alerts().size(),
        firing,
        shards,
        history.size(),
        silences.size(),
        pending.size(),
        threads.size(),
        weeks.size());
  }

  /** The file's state as one state per shard, every part at its recipe's shard. */
  static List<AlertState> split(AlertState file, int shards) {
    List<Map<String, ActiveAlert>> alerts = new ArrayList<>();
    List<List<Transition>> queued = new ArrayList<>();
    List<Map<String, RecipeModel>> models = new ArrayList<>();
    List<Map<String, DropTest.State>> detectors = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      alerts.add(new HashMap<>());
      queued.add(new ArrayList<>());
      models.add(new HashMap<>());
      detectors.add(new HashMap<>());
    }
    file.alerts().forEach((id, a) -> alerts.get(a.key().shard(shards)).put(id, a));
    file.queued().forEach(t -> queued.get(t.key().shard(shards)).add(t));
    file.models()
        .forEach((recipe, m) -> models.get(AlertKey.shardOf(recipe, shards)).put(recipe, m));
    file.detectors().forEach((id, d) -> detectors.get(AlertKey.parse(id).shard(shards)).put(id, d));
    List<AlertState> out = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      out.add(
          new AlertState(
              AlertState.VERSION,
              alerts.get(i),
              i == 0 ? file.datasourceFailingSince() : null,
              file.nextSequence(),
              queued.get(i),
              models.get(i),
              detectors.get(i)));
    }
    return out;
  }
}
