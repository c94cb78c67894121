package dev.specwatch.model;

import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Fire when the value drops below {@code below}; clear only when it rises above {@code clearAbove}
 * (hysteresis), or above {@code below} when none is given.
 */
public record Threshold(double below, OptionalDouble clearAbove, Optional<Severity> severity) {
  public Threshold {
    if (Double.isNaN(below)) {
      throw new IllegalArgumentException("below must be a number");
    }
    if (clearAbove.isPresent() && clearAbove.getAsDouble() < below) {
      throw new IllegalArgumentException("clear_above must not be below 'below'");
    }
  }

  public static Threshold below(double value) {
    return new Threshold(value, OptionalDouble.empty(), Optional.empty());
  }

  public boolean breachedBy(double value) {
    return value < below;
  }

  /** The level a firing alert must exceed to clear. */
  public double clearLevel() {
    return clearAbove.orElse(below);
  }
}
