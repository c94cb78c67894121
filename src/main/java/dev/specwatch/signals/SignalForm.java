package dev.specwatch.signals;

import java.util.ArrayList;
import java.util.List;

/**
 * How a recipe's figures were obtained from what its servers export (docs/ENGINES.md): whether they
 * are approximate, whether acceptance by position is exported, and what the reader should know
 * about the rest.
 *
 * @param approximate the accepted length and acceptance are not exact over the window (SGLang
 *     without {@code spec_verify_calls_total}: a recent log interval's gauge)
 * @param positions {@code exported}, or why there are none, e.g. "not exported by this vLLM"
 * @param notes one sentence each, for check, the UI and the API
 * @param k the k the servers reported over the window, where the engine says it ({@link ActiveK});
 *     null where it does not, or in an evaluation stored by an older replica
 * @param speedupVerdict the verdict of the measured speed-up that {@code thresholds.speedup} reads,
 *     with its figure and interval ("breaks even (1.02× per request at 16–31 running requests, 95 %
 *     0.97–1.07)"), or null
 * @param speedupConfounded why that speed-up may be confounded ("may be confounded: the two sides'
 *     requests differ (…)", {@link FinishedRequests#mixDiffers}), or null
 */
public record SignalForm(
    boolean approximate,
    String positions,
    List<String> notes,
    ActiveK.Reading k,
    String speedupVerdict,
    String speedupConfounded) {
  public static final String EXPORTED = "exported";

  public SignalForm {
    notes = List.copyOf(notes);
  }

  public SignalForm(boolean approximate, String positions, List<String> notes) {
    this(approximate, positions, notes, null, null, null);
  }

  /** This form with what the servers reported of k, and the note when it is not the policy's. */
  public SignalForm withK(ActiveK.Reading reading, int policyK) {
    List<String> more = new ArrayList<>(notes);
    reading.note(policyK).ifPresent(more::add);
    reading.draftNote(policyK).ifPresent(more::add);
    return new SignalForm(approximate, positions, more, reading, speedupVerdict, speedupConfounded);
  }

  /**
   * This form with the speed-up {@code thresholds.speedup} reads: its verdict ("the speed-up at the
   * load it ran lately breaks even (…)") and, where {@code confounded} is not null, why it may be
   * confounded.
   */
  public SignalForm withSpeedup(String verdict, String confounded) {
    List<String> more = new ArrayList<>(notes);
    more.add("the speed-up at the load it ran lately " + verdict);
    if (confounded != null) {
      more.add("the speed-up " + confounded);
    }
    return new SignalForm(approximate, positions, more, k, verdict, confounded);
  }

  public boolean positionsExported() {
    return positions.equals(EXPORTED);
  }
}
