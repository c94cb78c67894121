package dev.specwatch.signals;

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
 */
public record SignalForm(boolean approximate, String positions, List<String> notes) {
  public static final String EXPORTED = "exported";

  public SignalForm {
    notes = List.copyOf(notes);
  }

  public boolean positionsExported() {
    return positions.equals(EXPORTED);
  }
}
