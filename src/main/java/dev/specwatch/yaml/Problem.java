package dev.specwatch.yaml;

import dev.specwatch.model.Location;

/**
 * One thing wrong with an input file, printed as {@code FILE:LINE:COL: key.path: message}. The
 * message never contains a secret value: callers only quote values of keys that are not secrets.
 */
public record Problem(Location location, String path, String message)
    implements Comparable<Problem> {
  public Problem {
    if (location == null || message == null || message.isBlank()) {
      throw new IllegalArgumentException("location and message are required");
    }
    path = path == null ? "" : path;
  }

  @Override
  public String toString() {
    return path.isEmpty() ? location + ": " + message : location + ": " + path + ": " + message;
  }

  @Override
  public int compareTo(Problem o) {
    int c = location.file().compareTo(o.location.file());
    if (c != 0) return c;
    c = Integer.compare(location.line(), o.location.line());
    if (c != 0) return c;
    return Integer.compare(location.column(), o.location.column());
  }
}
