package dev.specwatch.alerting;

import dev.specwatch.model.Policy;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.store.ConflictException;
import dev.specwatch.store.StateHealth;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One evaluation cycle: evaluate every recipe, advance the alert state, persist it with the new
 * transitions queued, then hand the queue to the sink. The state is saved before anything is
 * delivered, so a crash at any point loses no transition; a transition is at worst delivered twice
 * if the process dies between a delivery and the save that records it. Thread-safe: one cycle at a
 * time.
 */
public final class AlertService {
  private static final Logger logger = LoggerFactory.getLogger(AlertService.class);

  /** Expired silences stay listed ({@code silence list --all}) this long, then are dropped. */
  static final Duration SILENCE_RETENTION = Duration.ofDays(7);

  private final Evaluator evaluator;
  private final Learner learner;
  private final AlertEngine engine;
  private final StateStore store;
  private final Silences silences;
  private final TransitionSink sink;
  private final Clock clock;

  /** Replaced whole (an immutable value) by the cycle; read without the cycle's lock. */
  private volatile AlertState state;

  private List<Silence> lastSilences = List.of();
  private final StateHealth health;

  /** How long {@code specwatch/state_recovered} fires after a damaged state file was set aside. */
  static final Duration RECOVERED_ALERT_FOR = Duration.ofHours(1);

  private final History history;

  private AlertService(Builder b) throws IOException {
    this.health = b.health;
    this.learner = b.learner;
    this.evaluator = b.evaluator;
    this.engine = b.engine;
    this.store = b.store;
    this.silences = b.silences;
    this.sink = b.sink;
    this.clock = b.clock;
    this.history = b.history;
    this.state = store.load();
  }

  /** A service that evaluates with {@code evaluator} and moves alerts with {@code engine}. */
  public static Builder builder(Evaluator evaluator, AlertEngine engine, Clock clock) {
    return new Builder(evaluator, engine, clock);
  }

  /**
   * The service's stores and collaborators. {@link #files} puts every store in one state directory
   * (a command, a test); the daemon's backend sets each store itself. What is set explicitly wins
   * over {@code files}.
   */
  public static final class Builder {
    private final Evaluator evaluator;
    private final AlertEngine engine;
    private final Clock clock;
    private Path dir;
    private Learner learner;
    private StateStore store;
    private Silences silences;
    private History history;
    private TransitionSink sink;
    private StateHealth health;

    private Builder(Evaluator evaluator, AlertEngine engine, Clock clock) {
      this.evaluator = evaluator;
      this.engine = engine;
      this.clock = clock;
    }

    /** The state, silences, transition history and health of the state directory {@code dir}. */
    public Builder files(Path dir) {
      this.dir = dir;
      return this;
    }

    /** Learns recipes' models for change detection and sequential tests; none by default. */
    public Builder learner(Learner learner) {
      this.learner = learner;
      return this;
    }

    public Builder store(StateStore store) {
      this.store = store;
      return this;
    }

    public Builder silences(Silences silences) {
      this.silences = silences;
      return this;
    }

    /** Where transitions are appended. */
    public Builder history(History history) {
      this.history = history;
      return this;
    }

    /** Where the transitions of each cycle go once the state is saved (required). */
    public Builder sink(TransitionSink sink) {
      this.sink = sink;
      return this;
    }

    /** Where a failed save is reported, and whose recoveries raise {@code state_recovered}. */
    public Builder health(StateHealth health) {
      this.health = health;
      return this;
    }

    /** Loads the saved state. */
    public AlertService build() throws IOException {
      if (dir != null) {
        health = health != null ? health : new StateHealth(dir);
        store = store != null ? store : new FileStateStore(dir, clock);
        silences = silences != null ? silences : new SilenceStore(dir);
        history = history != null ? history : new TransitionHistory(dir);
      }
      if (store == null || silences == null || history == null || sink == null || health == null) {
        throw new IllegalStateException(
            "an AlertService needs a store, silences, a history, a sink and a health (or files)");
      }
      return new AlertService(this);
    }
  }

  /** What one cycle did. */
  public record Cycle(
      Evaluation evaluation, List<Transition> transitions, int delivered, int stillQueued) {}

  public synchronized Cycle runOnce(List<Policy> policies, Duration window) {
    return runOnce(policies, window, null);
  }

  /**
   * One cycle with evaluation steps of {@code step} (the evaluation interval): recipes whose rules
   * decide on per-step increments get them, and their models are learned when due.
   */
  public synchronized Cycle runOnce(List<Policy> policies, Duration window, Duration stepSize) {
    Instant now = clock.instant();
    if (!reload()) {
      return new Cycle(
          new Evaluation(now, window, List.of(), 0), List.of(), 0, state.queued().size());
    }
    AlertState current = state;
    if (learner != null && stepSize != null) {
      current = current.withModels(learner.learn(policies, current, stepSize, now));
    }
    Evaluation evaluation = evaluator.evaluate(policies, window, stepSize, Optional.of(now));
    if (evaluator.abandoned()) {
      // Stopping: the queries were cancelled, so their errors say nothing about the datasource.
      // Nothing is saved (the previous evaluation's state stands) and nothing is notified.
      logger.info("evaluation abandoned: specwatch is stopping; the previous state stands");
      return new Cycle(evaluation, List.of(), 0, state.queued().size());
    }
    AlertEngine.Step step =
        engine.step(current, policies, evaluation, currentSilences(), problems(now));
    AlertState next = step.state().withQueued(step.transitions());
    if (!save(next)) {
      // Frozen, and saying so (/readyz, /metrics): what cannot be recorded is not notified.
      return new Cycle(evaluation, List.of(), 0, state.queued().size());
    }
    state = next;
    try {
      history.append(step.transitions());
    } catch (IOException e) {
      logger.warn("cannot append to the transition history: {}", e.getMessage());
    }
    for (Transition t : step.transitions()) {
      logger.info(TransitionLines.line(t));
    }
    int delivered = deliverQueued();
    return new Cycle(evaluation, step.transitions(), delivered, state.queued().size());
  }

  /** Delivers queued transitions in order; stops at the first failure to keep the order. */
  private int deliverQueued() {
    List<Transition> done = new ArrayList<>();
    for (Transition t : state.queued()) {
      try {
        sink.deliver(t);
        done.add(t);
      } catch (Exception e) {
        logger.warn(
            "delivering {} {} failed, will retry next cycle: {}",
            t.kind(),
            t.alertId(),
            e.getMessage());
        break;
      }
    }
    if (!done.isEmpty()) {
      AlertState next = state.withoutQueued(done);
      if (save(next)) {
        state = next;
      }
    }
    return done.size();
  }

  private List<Silence> currentSilences() {
    try {
      silences.prune(clock.instant().minus(SILENCE_RETENTION));
      lastSilences = silences.load();
    } catch (IOException | RuntimeException e) {
      logger.warn(
          "cannot read silences from {}: {}; using the last ones read",
          silences.where(),
          e.getMessage());
    }
    return lastSilences;
  }

  /** Reads a shared state again (another replica may have run this shard last). */
  private boolean reload() {
    try {
      Optional<AlertState> saved = store.savedElsewhere();
      if (saved.isPresent()) {
        state = saved.get();
        health.ok();
      }
      return true;
    } catch (IOException e) {
      health.failed(e);
      return false;
    }
  }

  /** Saves the state; false (reported to the health, logged once) when it cannot be written. */
  private boolean save(AlertState next) {
    try {
      store.save(next);
      health.ok();
      return true;
    } catch (ConflictException e) {
      // Another replica took this work over (this one missed its check-ins): its state stands.
      logger.warn("not saving this evaluation: {}", e.getMessage());
      return false;
    } catch (IOException e) {
      health.failed(e);
      return false;
    }
  }

  /** specwatch's own problems to alert on: state files set aside in the last hour. */
  private Map<String, String> problems(Instant now) {
    List<String> recent =
        health.recoveries().stream()
            .filter(r -> r.at().plus(RECOVERED_ALERT_FOR).isAfter(now))
            .map(r -> r.file() + " was damaged and moved to " + r.movedTo() + ": " + r.lost())
            .toList();
    return recent.isEmpty() ? Map.of() : Map.of("state_recovered", String.join("; ", recent));
  }

  /** The latest saved state; never waits for a running cycle. */
  public AlertState state() {
    return state;
  }
}
