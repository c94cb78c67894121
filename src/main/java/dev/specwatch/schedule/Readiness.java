package dev.specwatch.schedule;

import dev.specwatch.backend.StateBackend;
import dev.specwatch.signals.Evaluation;
import java.util.Optional;

/**
 * Whether the daemon is ready: while evaluations succeed and the state can be written. A datasource
 * outage makes it not ready (its alerts are frozen), and it is ready again with the first
 * evaluation that succeeds. {@code /healthz} stays 200 either way: a restart fixes neither a
 * datasource nor a disk, and a liveness failure would only add a restart loop. It fails only when
 * evaluations stop happening at all ({@link Liveness}), which a restart does fix.
 */
final class Readiness {
  private final StateBackend state;
  private final Liveness liveness;

  /** Null before the first evaluation. */
  private volatile Evaluation last;

  Readiness(StateBackend state, Liveness liveness) {
    this.state = state;
    this.liveness = liveness;
  }

  /** Why {@code /healthz} fails: evaluations stopped happening ({@link Liveness}). */
  Optional<String> stalled() {
    return liveness.stalled();
  }

  /** After each evaluation: what this process evaluated lately, every shard it ran as one. */
  void evaluated(Evaluation mine) {
    last = mine;
  }

  boolean ready() {
    Evaluation e = last;
    boolean evaluations = e == null ? state.readyBeforeFirstEvaluation() : !e.anyDatasourceError();
    return evaluations && state.health().readiness().isEmpty() && liveness.stalled().isEmpty();
  }

  /** Where the first evaluation stands, for {@code /readyz} and {@code /api/v1/recipes}. */
  String beforeFirstEvaluation() {
    return "no evaluation yet: " + liveness.beforeFirstEvaluation();
  }

  /** Why not ready, for {@code /readyz} (no secrets). */
  String notReadyReason() {
    Optional<String> problem = state.health().readiness().or(liveness::stalled);
    if (problem.isPresent()) {
      return problem.get();
    }
    Evaluation e = last;
    if (e == null) {
      return beforeFirstEvaluation();
    }
    return e.recipes().stream()
        .flatMap(r -> r.error().stream())
        .findFirst()
        .map(error -> "datasource: " + error)
        .orElse("no successful evaluation yet");
  }
}
