package dev.specwatch.config;

import dev.specwatch.model.Severity;
import dev.specwatch.model.Threshold;
import dev.specwatch.yaml.MapReader;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The fixed lines of one signal's key: its floor ({@code below}, {@code clear_above}) and, where
 * the key takes one, its ceiling ({@code above}, {@code clear_below}); each optional.
 */
record ThresholdLines(Optional<Threshold> floor, Optional<Threshold> ceiling) {
  static final ThresholdLines NONE = new ThresholdLines(Optional.empty(), Optional.empty());

  /**
   * {@code {below: 0.5, clear_above: 0.55, above: 0.97, clear_below: 0.95, severity: …}}: a floor,
   * a ceiling or both on one signal, sharing the severity.
   */
  static ThresholdLines read(MapReader a, double min, double max) {
    if (!a.has("below") && !a.has("above")) {
      a.error("below", "is required (or 'above' for a line the value must stay under)");
    }
    OptionalDouble below = a.optionalNumber("below", min, max);
    OptionalDouble clearAbove = a.optionalNumber("clear_above", min, max);
    OptionalDouble above = a.optionalNumber("above", min, max);
    OptionalDouble clearBelow = a.optionalNumber("clear_below", min, max);
    Optional<Severity> severity = Converters.severity(a);
    a.finish();
    Optional<Threshold> floor = floorOf(a, below, clearAbove, severity);
    Optional<Threshold> ceiling = Optional.empty();
    if (below.isEmpty() && clearAbove.isPresent()) {
      a.error("clear_above", "clears a 'below' line; there is none");
    }
    if (above.isPresent()) {
      double line = above.getAsDouble();
      if (clearBelow.isPresent() && clearBelow.getAsDouble() > line) {
        a.error("clear_below", "must be at most 'above' (" + line + ")");
      } else if (below.isPresent() && line <= below.getAsDouble()) {
        a.error("above", "must be higher than 'below' (" + below.getAsDouble() + ")");
      } else {
        ceiling = Optional.of(new Threshold(Threshold.Direction.ABOVE, line, clearBelow, severity));
      }
    } else if (clearBelow.isPresent()) {
      a.error("clear_below", "clears an 'above' line; there is none");
    }
    return new ThresholdLines(floor, ceiling);
  }

  /** A key that takes a floor only: {@code {below, clear_above, severity}}. */
  static Optional<Threshold> floor(MapReader a, double min, double max) {
    OptionalDouble below = a.optionalNumber("below", min, max);
    if (!a.has("below")) {
      a.error("below", "is required");
    }
    OptionalDouble clear = a.optionalNumber("clear_above", min, max);
    Optional<Severity> severity = Converters.severity(a);
    a.finish();
    return floorOf(a, below, clear, severity);
  }

  /** The floor of {@code below} and {@code clear_above}; empty without one or when it is wrong. */
  private static Optional<Threshold> floorOf(
      MapReader a, OptionalDouble below, OptionalDouble clearAbove, Optional<Severity> severity) {
    if (below.isEmpty()) {
      return Optional.empty();
    }
    if (clearAbove.isPresent() && clearAbove.getAsDouble() < below.getAsDouble()) {
      a.error("clear_above", "must be at least 'below' (" + below.getAsDouble() + ")");
      return Optional.empty();
    }
    return Optional.of(new Threshold(below.getAsDouble(), clearAbove, severity));
  }
}
