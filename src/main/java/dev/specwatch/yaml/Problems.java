package dev.specwatch.yaml;

import dev.specwatch.model.Location;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects every problem found while reading input, so a user sees all of them at once rather than
 * fixing one error per run. Not thread-safe: one instance per load.
 */
public final class Problems {
  private final List<Problem> problems = new ArrayList<>();

  public void add(Location location, String path, String message) {
    problems.add(new Problem(location, path, message));
  }

  public int size() {
    return problems.size();
  }

  public boolean isEmpty() {
    return problems.isEmpty();
  }

  /** The problems in file order. */
  public List<Problem> sorted() {
    List<Problem> copy = new ArrayList<>(problems);
    copy.sort(null);
    return List.copyOf(copy);
  }

  /** Throws {@link InvalidInputException} carrying every problem, if there are any. */
  public void throwIfAny() {
    if (!problems.isEmpty()) {
      throw new InvalidInputException(sorted());
    }
  }
}
