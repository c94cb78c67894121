package dev.specwatch.backend;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.FileStateStore;
import dev.specwatch.alerting.History;
import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.alerting.Silences;
import dev.specwatch.alerting.StateStore;
import dev.specwatch.alerting.TransitionHistory;
import dev.specwatch.digest.DigestLedger;
import dev.specwatch.ha.ClusterView;
import dev.specwatch.notify.NotificationStores;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.impl.StdSchedulerFactory;

/**
 * {@code state.backend: file}: one process, its state in the files of {@code state.dir}. The
 * notification stores are opened on first use, so a command that only adds a silence never recovers
 * (moves aside) a file the running daemon holds.
 */
final class FileBackend implements StateBackend {
  private final Path dir;
  private final Clock clock;
  private final StateHealth health;
  private final SilenceStore silences;
  private final TransitionHistory history;
  private NotificationStores notifications;

  FileBackend(Path dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
    this.health = new StateHealth(dir);
    this.silences = new SilenceStore(dir, health);
    this.history = new TransitionHistory(dir);
  }

  @Override
  public String instance() {
    return "";
  }

  @Override
  public String describe() {
    return "";
  }

  @Override
  public int shards() {
    return 1;
  }

  @Override
  public boolean readyBeforeFirstEvaluation() {
    return false;
  }

  @Override
  public boolean reachable() {
    return true;
  }

  @Override
  public StateHealth health() {
    return health;
  }

  @Override
  public synchronized NotificationStores notifications() throws IOException {
    if (notifications == null) {
      notifications = NotificationStores.open(dir, health, clock);
    }
    return notifications;
  }

  @Override
  public Silences silences() {
    return silences;
  }

  @Override
  public History history() {
    return history;
  }

  @Override
  public StateStore alertState(int shard) {
    return new FileStateStore(dir, clock, health);
  }

  @Override
  public DigestLedger digestLedger() {
    return DigestLedger.file(dir.resolve("digest-sent.json"));
  }

  @Override
  public Scheduler scheduler(int threads) throws SchedulerException {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", "specwatch");
    p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(threads));
    p.setProperty("org.quartz.threadPool.threadNamePrefix", "specwatch-quartz");
    p.setProperty("org.quartz.threadPool.makeThreadsDaemons", "true");
    p.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
    // A run more than this late counts as missed and is skipped (see the evaluation trigger).
    p.setProperty("org.quartz.jobStore.misfireThreshold", "1000");
    return new StdSchedulerFactory(p).getScheduler();
  }

  @Override
  public void evaluated(
      int shard, String job, Evaluation evaluation, Instant started, Instant finished) {
    // One process: nobody else reads its evaluations.
  }

  @Override
  public Optional<Evaluation> evaluation(Supplier<Optional<Evaluation>> local) {
    return local.get();
  }

  @Override
  public AlertState alertState(Supplier<AlertState> local) {
    return local.get();
  }

  @Override
  public Optional<ClusterView> view() {
    return Optional.empty();
  }

  @Override
  public List<Integer> shardsFrom(int first) {
    return List.of();
  }

  @Override
  public void retire(int shard) {
    throw new IllegalStateException("the file backend has one shard, never retired");
  }

  @Override
  public void close() {
    // Files are written whole at every save: nothing to close.
  }
}
