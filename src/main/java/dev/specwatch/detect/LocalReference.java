package dev.specwatch.detect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A drop test against the level of the recent past instead of the learned level: the change rule's
 * test of a sudden drop (docs/DETECTION.md, "Sudden drops"). The reference is an exponentially
 * weighted mean of the step ratios observed / learned level, with time constant {@link #MEMORY}. A
 * step enters it only {@link #LAG} after it was seen, and only if the test has not started an
 * excursion meanwhile (the steps still waiting are then dropped), so a drop cannot drag its own
 * reference down; a slow wander of the prompt mix is followed and never becomes evidence.
 *
 * @param test the test's state (its levels are the reference × the learned level)
 * @param successes decayed sum of successes of the steps in the reference
 * @param expected decayed sum of learned level × trials over the same steps
 * @param since the first step in the reference (it is {@link #ready} {@link #MEMORY} later)
 * @param last the last step in the reference
 * @param waiting steps seen but not yet in the reference, oldest first
 */
public record LocalReference(
    DropTest.State test,
    double successes,
    double expected,
    Instant since,
    Instant last,
    List<Waiting> waiting) {
  /** The reference's time constant. */
  public static final Duration MEMORY = Duration.ofHours(1);

  /** How long a step waits before it enters the reference. */
  public static final Duration LAG = Duration.ofMinutes(10);

  /** A step waiting to enter the reference. */
  public record Waiting(Instant at, double successes, double expected) {}

  public LocalReference {
    waiting = waiting == null ? List.of() : List.copyOf(waiting);
  }

  public static LocalReference start(int shifts) {
    return new LocalReference(DropTest.State.initial(shifts), 0, 0, null, null, List.of());
  }

  /** The reference as a multiple of the learned level, or NaN before any step entered it. */
  public double ratio() {
    return expected > 0 ? successes / expected : Double.NaN;
  }

  /**
   * Whether the reference has taken no step for longer than {@link #MEMORY}: a test that hovered at
   * its null for an hour (each excursion drops the steps waiting to enter) would otherwise keep
   * testing against the level of hours ago, and read any later fall of the mix on top of a level
   * exactly at the floor as a sudden drop. The change rule then starts the test over.
   */
  public boolean stale(Instant at) {
    return last != null && Duration.between(last, at).compareTo(MEMORY) > 0;
  }

  /** Whether the reference spans {@link #MEMORY} of traffic. */
  public boolean ready() {
    return since != null && expected > 0 && Duration.between(since, last).compareTo(MEMORY) >= 0;
  }

  /**
   * One more healthy step, {@code successes} of {@code trials} at learned level {@code level}: it
   * waits; the steps that have waited {@link #LAG} enter the reference.
   */
  public LocalReference observe(Instant at, double successes, double trials, double level) {
    List<Waiting> still = new ArrayList<>(waiting);
    still.add(new Waiting(at, successes, level * trials));
    double s = this.successes;
    double e = this.expected;
    Instant first = since;
    Instant latest = last;
    while (!still.isEmpty() && !still.get(0).at().plus(LAG).isAfter(at)) {
      Waiting w = still.remove(0);
      double decay =
          latest == null
              ? 0
              : Math.exp(-(double) Duration.between(latest, w.at()).toMillis() / MEMORY.toMillis());
      s = s * decay + w.successes();
      e = e * decay + w.expected();
      first = first == null ? w.at() : first;
      latest = w.at();
    }
    return new LocalReference(test, s, e, first, latest, still);
  }

  /** The test advanced; steps still waiting are dropped when it is in an excursion. */
  public LocalReference test(DropTest.State t) {
    return new LocalReference(
        t, successes, expected, since, last, t.since() == null ? waiting : List.of());
  }
}
