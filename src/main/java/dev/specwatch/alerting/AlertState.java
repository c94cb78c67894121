package dev.specwatch.alerting;

import dev.specwatch.detect.DropTest;
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
 * @param models what was learned of each recipe's normal, by recipe (change detection, sequential
 *     tests)
 * @param detectors the sequential tests' statistics, by alert id
 */
public record AlertState(
    int version,
    Map<String, ActiveAlert> alerts,
    Instant datasourceFailingSince,
    long nextSequence,
    List<Transition> queued,
    Map<String, RecipeModel> models,
    Map<String, DropTest.State> detectors) {

  public static final int VERSION = 1;

  public AlertState {
    alerts = sorted(alerts);
    queued = List.copyOf(queued);
    // Files written before change detection existed have neither map.
    models = sorted(models == null ? Map.of() : models);
    detectors = sorted(detectors == null ? Map.of() : detectors);
  }

  /**
   * An unmodifiable copy ordered by key. The copy is a sorted map, so a state made from another
   * state (every step makes several) copies its maps in linear time; an unsorted view made each
   * copy sort 10,000 recipes' models and detectors again (about a tenth of the profile's samples at
   * 10,000 recipes, though no change was measurable on its own: docs/PERFORMANCE.md, 2026-12-06).
   */
  private static <V> Map<String, V> sorted(Map<String, V> m) {
    return Collections.unmodifiableSortedMap(new TreeMap<>(m));
  }

  public static AlertState empty() {
    return new AlertState(VERSION, Map.of(), null, 1, List.of(), Map.of(), Map.of());
  }

  /**
   * An empty state whose sequence numbers start from the clock (milliseconds × 1000), so a state
   * that was lost (moved aside, deleted) never hands out a sequence number it handed out before:
   * receivers de-duplicate on alert id and sequence.
   */
  public static AlertState emptyAt(Instant now) {
    return new AlertState(
        VERSION,
        Map.of(),
        null,
        Math.max(1, now.toEpochMilli()) * 1000,
        List.of(),
        Map.of(),
        Map.of());
  }

  public AlertState withQueued(List<Transition> transitions) {
    List<Transition> all = new ArrayList<>(queued);
    all.addAll(transitions);
    return new AlertState(
        version, alerts, datasourceFailingSince, nextSequence, all, models, detectors);
  }

  /** The state without the given (delivered) transitions in its queue. */
  public AlertState withoutQueued(List<Transition> delivered) {
    List<Transition> rest = new ArrayList<>(queued);
    rest.removeAll(delivered);
    return new AlertState(
        version, alerts, datasourceFailingSince, nextSequence, rest, models, detectors);
  }

  /** The state with the next transitions numbered from {@code next}. */
  public AlertState withNextSequence(long next) {
    return new AlertState(version, alerts, datasourceFailingSince, next, queued, models, detectors);
  }

  /** The state with newly learned models (replacing those of the same recipes). */
  public AlertState withModels(Map<String, RecipeModel> learned) {
    if (learned.isEmpty()) {
      return this;
    }
    Map<String, RecipeModel> all = new TreeMap<>(models);
    all.putAll(learned);
    return new AlertState(
        version, alerts, datasourceFailingSince, nextSequence, queued, all, detectors);
  }
}
