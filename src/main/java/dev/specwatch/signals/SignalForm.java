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
 * @param speedupConfounded why the measured speed-up ({@code thresholds.speedup}) may be confounded
 *     ("may be confounded: the two sides' requests differ (…)", {@link
 *     FinishedRequests#mixDiffers}), or null
 */
public record SignalForm(
    boolean approximate,
    String positions,
    List<String> notes,
    ActiveK.Reading k,
    String speedupConfounded) {
  public static final String EXPORTED = "exported";

  public SignalForm {
    notes = List.copyOf(notes);
  }

  public SignalForm(boolean approximate, String positions, List<String> notes) {
    this(approximate, positions, notes, null, null);
  }

  /** This form with what the servers reported of k, and the note when it is not the policy's. */
  public SignalForm withK(ActiveK.Reading reading, int policyK) {
    List<String> more = new ArrayList<>(notes);
    reading.note(policyK).ifPresent(more::add);
    reading.draftNote(policyK).ifPresent(more::add);
    return new SignalForm(approximate, positions, more, reading, speedupConfounded);
  }

  /** This form saying that the measured speed-up may be confounded, and why. */
  public SignalForm withSpeedupConfounded(String why) {
    List<String> more = new ArrayList<>(notes);
    more.add("the speed-up " + why);
    return new SignalForm(approximate, positions, more, k, why);
  }

  public boolean positionsExported() {
    return positions.equals(EXPORTED);
  }
}
