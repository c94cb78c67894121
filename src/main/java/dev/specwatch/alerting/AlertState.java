package dev.specwatch.alerting;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything the alert engine remembers between evaluations, persisted by a {@link StateStore}.
 *
 * @param alerts pending and firing alerts by id
 * @param datasourceFailingSince when queries started failing; null while they succeed
 * @param nextSequence the sequence number the next transition gets
 * @param queued transitions recorded but not yet handed to the notifiers
 */
public record AlertState(
    int version,
    Map<String, ActiveAlert> alerts,
    Instant datasourceFailingSince,
    long nextSequence,
    List<Transition> queued) {

  public static final int VERSION = 1;

  public AlertState {
    alerts = Collections.unmodifiableMap(new TreeMap<>(alerts));
    queued = List.copyOf(queued);
  }

  public static AlertState empty() {
    return new AlertState(VERSION, Map.of(), null, 1, List.of());
  }

  public AlertState withQueued(List<Transition> transitions) {
    List<Transition> all = new ArrayList<>(queued);
    all.addAll(transitions);
    return new AlertState(version, alerts, datasourceFailingSince, nextSequence, all);
  }

  /** The state without the given (delivered) transitions in its queue. */
  public AlertState withoutQueued(List<Transition> delivered) {
    List<Transition> rest = new ArrayList<>(queued);
    rest.removeAll(delivered);
    return new AlertState(version, alerts, datasourceFailingSince, nextSequence, rest);
  }
}
