package dev.specwatch.model;

import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A fixed line a value must not cross. A floor ({@link Direction#BELOW}, the usual one) fires when
 * the value drops below {@code level} and clears only when it rises above {@code clearAt}; a
 * ceiling ({@link Direction#ABOVE}: acceptance that is too high, a model stuck repeating itself)
 * fires above {@code level} and clears only below {@code clearAt}. Without {@code clearAt} the line
 * itself clears (no hysteresis).
 */
public record Threshold(
    Direction direction, double level, OptionalDouble clearAt, Optional<Severity> severity) {

  /** Which side of the line is wrong. */
  public enum Direction {
    /** Fires below the line: {@code below:}, cleared by {@code clear_above:}. */
    BELOW("below", "above", "<"),
    /** Fires above the line: {@code above:}, cleared by {@code clear_below:}. */
    ABOVE("above", "below", ">");

    private final String word;
    private final String clearWord;
    private final String operator;

    Direction(String word, String clearWord, String operator) {
      this.word = word;
      this.clearWord = clearWord;
      this.operator = operator;
    }

    /** "below" or "above": the config key and the word in messages. */
    public String word() {
      return word;
    }

    /** The side the value must return to: "above" for a floor, "below" for a ceiling. */
    public String clearWord() {
      return clearWord;
    }

    /** PromQL's comparison that is true while the line is crossed: {@code <} or {@code >}. */
    public String operator() {
      return operator;
    }
  }

  public Threshold {
    if (direction == null || Double.isNaN(level)) {
      throw new IllegalArgumentException("a threshold needs a direction and a number");
    }
    boolean clearOnWrongSide =
        clearAt.isPresent()
            && (direction == Direction.BELOW
                ? clearAt.getAsDouble() < level
                : clearAt.getAsDouble() > level);
    if (clearOnWrongSide) {
      throw new IllegalArgumentException(
          "clear_" + direction.clearWord() + " must not be " + direction.word() + " the line");
    }
  }

  /** A floor: fires below {@code below}, clears above {@code clearAbove} (or the line). */
  public Threshold(double below, OptionalDouble clearAbove, Optional<Severity> severity) {
    this(Direction.BELOW, below, clearAbove, severity);
  }

  public static Threshold below(double value) {
    return new Threshold(Direction.BELOW, value, OptionalDouble.empty(), Optional.empty());
  }

  public static Threshold above(double value) {
    return new Threshold(Direction.ABOVE, value, OptionalDouble.empty(), Optional.empty());
  }

  /** Whether this is a floor (fires below its line). */
  public boolean floor() {
    return direction == Direction.BELOW;
  }

  /** Whether {@code value} is on the wrong side of the line. */
  public boolean breachedBy(double value) {
    return floor() ? value < level : value > level;
  }

  /** Whether a firing alert with {@code value} is back past its clear level. */
  public boolean clearedBy(double value) {
    return floor() ? value > clearLevel() : value < clearLevel();
  }

  /** The level a firing alert must get back past to clear. */
  public double clearLevel() {
    return clearAt.orElse(level);
  }
}
