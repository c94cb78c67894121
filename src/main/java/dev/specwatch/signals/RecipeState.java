package dev.specwatch.signals;

import java.util.Locale;

/** The verdict of one evaluation for one recipe. */
public enum RecipeState {
  /** Enough traffic and every threshold met. */
  OK,
  /** Enough traffic and at least one threshold breached. */
  BREACH,
  /** The recipe's series exist but there were no drafts in the window: no verdict. */
  IDLE,
  /** Fewer drafts than the policy's min_drafts: too little traffic for a verdict. */
  LOW_TRAFFIC,
  /** The recipe's series do not exist at all (wrong match, target down, not deployed). */
  NO_DATA,
  /** The datasource could not be queried for this recipe. */
  ERROR;

  /** The name in JSON and text output: ok, breach, idle, low_traffic, no_data, error. */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
