package dev.specwatch.model;

/** A position in a source file; line and column are 1-based. */
public record Location(String file, int line, int column) {
  public Location {
    if (file == null || file.isBlank()) {
      throw new IllegalArgumentException("file must be named");
    }
  }

  @Override
  public String toString() {
    return file + ":" + line + ":" + column;
  }
}
