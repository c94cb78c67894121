package dev.specwatch.yaml;

import dev.specwatch.model.Location;
import java.util.List;
import java.util.Map;

/**
 * A YAML value that remembers where it was written, so errors can name file, line and column.
 * Scalars keep their text; typing (number, duration, ...) happens in {@link MapReader}, which knows
 * what each key expects.
 */
public sealed interface YamlNode {
  Location location();

  /** Human name of the node's kind, used in "expected a mapping, got a list" messages. */
  String kind();

  /**
   * @param invalid the text could not be produced (e.g. an undefined {@code ${VAR}}); the problem
   *     is already reported, so readers treat the value as present but unusable
   */
  record Scalar(String text, boolean isNull, boolean invalid, Location location)
      implements YamlNode {
    @Override
    public String kind() {
      return isNull ? "nothing" : "a value";
    }
  }

  record Sequence(List<YamlNode> items, Location location) implements YamlNode {
    public Sequence {
      items = List.copyOf(items);
    }

    @Override
    public String kind() {
      return "a list";
    }
  }

  /** Insertion-ordered; {@code keyLocations} says where each key was written. */
  record Mapping(
      Map<String, YamlNode> entries, Map<String, Location> keyLocations, Location location)
      implements YamlNode {
    @Override
    public String kind() {
      return "a mapping";
    }
  }
}
