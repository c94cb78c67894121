package dev.specwatch.ha;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.FileStateStore;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.alerting.Transition;
import dev.specwatch.alerting.TransitionHistory;
import dev.specwatch.detect.DropTest;
import dev.specwatch.digest.DigestService;
import dev.specwatch.notify.FileOutbox;
import dev.specwatch.notify.SlackGroup;
import dev.specwatch.notify.SlackThreadStore;
import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
  public static Summary run(Path stateDir, Database db, int shards, boolean force, Clock clock)
      throws IOException {
    int existing = PgStateStore.shardsFrom(db, 0).size();
    if (existing > 0 && !force) {
      throw new IllegalStateException(
          "the database has alert state already ("
              + existing
              + " shard(s)); importing would replace it: add --force to do so");
    }
    StateHealth health = new StateHealth(stateDir);
    AlertState file = new FileStateStore(stateDir, clock, health).load();
    List<AlertState> split = split(file, shards);
    int firing = 0;
    for (int i = 0; i < shards; i++) {
      PgStateStore store = new PgStateStore(db, i, clock);
      store.load();
      store.save(split.get(i));
    }
    for (ActiveAlert a : file.alerts().values()) {
      firing += a.phase() == dev.specwatch.alerting.AlertPhase.FIRING ? 1 : 0;
    }
    TransitionHistory fileHistory = new TransitionHistory(stateDir);
    List<Transition> history = fileHistory.between(Instant.MIN, Instant.MAX);
    new PgHistory(db).append(history);
    var silences = new SilenceStore(stateDir, health).load();
    PgSilences pgSilences = new PgSilences(db);
    var have = pgSilences.load().stream().map(s -> s.id()).toList();
    for (var s : silences) {
      if (!have.contains(s.id())) {
        pgSilences.add(s);
      }
    }
    var pending = new FileOutbox(stateDir, fileHistory::bySequence, health, clock).pending();
    new PgOutbox(db, clock).add(pending);
    Map<String, SlackThreadStore.SlackThread> threads =
        read(stateDir.resolve("slack-messages.json"), new TypeReference<>() {});
    copy(
        new PgKeyedStore<>(db, "slack-messages", SlackThreadStore.SlackThread.class, clock),
        threads);
    // A storm's group messages, so the resolves of their members edit them, not post anew.
    copy(
        new PgKeyedStore<>(db, "slack-groups", SlackGroup.class, clock),
        read(
            stateDir.resolve("slack-groups.json"),
            new TypeReference<Map<String, SlackGroup>>() {}));
    copy(
        new PgKeyedStore<>(db, "firing", Transition.class, clock),
        read(stateDir.resolve("firing.json"), new TypeReference<Map<String, Transition>>() {}));
    Map<String, DigestService.SentRecord> weeks =
        read(stateDir.resolve("digest-sent.json"), new TypeReference<>() {});
    copy(new PgKeyedStore<>(db, "digest-sent", DigestService.SentRecord.class, clock), weeks);
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
        .forEach((recipe, m) -> models.get(Cluster.shardOf(recipe, shards)).put(recipe, m));
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

  private static <V> Map<String, V> read(Path file, TypeReference<Map<String, V>> type)
      throws IOException {
    if (!Files.exists(file)) {
      return Map.of();
    }
    Map<String, V> map = DurableFiles.JSON.readValue(Files.readAllBytes(file), type);
    return map == null ? Map.of() : new TreeMap<>(map);
  }

  private static <V> void copy(PgKeyedStore<V> store, Map<String, V> values) throws IOException {
    values.forEach(store::put);
    if (!store.flush()) {
      throw new IOException("cannot write to the database");
    }
  }
}
