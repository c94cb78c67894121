package dev.specwatch.model;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Every rule an alert can be of, by its name in config, alert ids, silences and messages. Code
 * decides on these values, never on the name's text: what people read of a rule ({@link #words})
 * and whether its reason is "value below a fixed line" ({@link #staticThreshold}) are properties
 * here.
 */
public enum RuleName {
  ACCEPTANCE_RATE("acceptance_rate", "acceptance rate", Kind.STATIC_THRESHOLD),
  MEAN_ACCEPTED_LENGTH("mean_accepted_length", "mean accepted length", Kind.STATIC_THRESHOLD),
  /** Acceptance above its ceiling ({@code acceptance_rate: {above: …}}). */
  ACCEPTANCE_RATE_ABOVE("acceptance_rate_above", "acceptance rate too high", Kind.CEILING),
  /** Mean accepted length above its ceiling. */
  MEAN_ACCEPTED_LENGTH_ABOVE(
      "mean_accepted_length_above", "mean accepted length too high", Kind.CEILING),
  POSITION_ACCEPTANCE("position_acceptance", "acceptance at position", Kind.STATIC_THRESHOLD),
  REGRESSION("regression", "acceptance against its baseline", Kind.RECIPE),
  THROUGHPUT("throughput", "throughput per request", Kind.STATIC_THRESHOLD),
  SLO_BURN("slo_burn", "acceptance SLO budget", Kind.RECIPE),
  CHANGE("change", "acceptance (learned change detection)", Kind.RECIPE),
  SPEEDUP("speedup", "measured speed-up at its load", Kind.STATIC_THRESHOLD),
  DATASOURCE_UNAVAILABLE(
      "datasource_unavailable", "specwatch cannot query its datasource", Kind.SPECWATCH),
  STATE_RECOVERED("state_recovered", "specwatch set damaged state files aside", Kind.SPECWATCH),
  /** {@code specwatch notify test}: a message that is not an alert. */
  TEST("test", "Test message from `specwatch notify test`", Kind.TEST);

  private enum Kind {
    STATIC_THRESHOLD,
    /** A fixed line the value must stay under. */
    CEILING,
    RECIPE,
    SPECWATCH,
    TEST
  }

  private final String id;
  private final String words;
  private final Kind kind;

  RuleName(String id, String words, Kind kind) {
    this.id = id;
    this.words = words;
    this.kind = kind;
  }

  /** The name as written: {@code acceptance_rate}, {@code datasource_unavailable}, … */
  public String id() {
    return id;
  }

  /** What people read: "acceptance rate"; for specwatch's own alerts the title of the message. */
  public String words() {
    return words;
  }

  /** Whether the rule fires when a value crosses a fixed line (its reason says only that). */
  public boolean staticThreshold() {
    return kind == Kind.STATIC_THRESHOLD || kind == Kind.CEILING;
  }

  /** Whether the rule fires above its line ({@code acceptance_rate_above}) rather than below. */
  public boolean ceiling() {
    return kind == Kind.CEILING;
  }

  /** The rule of {@code id}; empty for a name no version of specwatch gave (old state). */
  public static Optional<RuleName> of(String id) {
    return Arrays.stream(values()).filter(r -> r.id.equals(id)).findFirst();
  }

  /**
   * The words of the rule {@code id}; for a name this version does not know (state written by a
   * newer one), the name with its underscores read as spaces.
   */
  public static String wordsOf(String id) {
    return of(id).map(RuleName::words).orElseGet(() -> id.replace('_', ' '));
  }

  /** Every name a silence may give (docs/ALERTING.md): all but the test message. */
  public static List<String> silenceable() {
    return Arrays.stream(values()).filter(r -> r.kind != Kind.TEST).map(RuleName::id).toList();
  }
}
