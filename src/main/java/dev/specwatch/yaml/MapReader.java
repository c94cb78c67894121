package dev.specwatch.yaml;

import dev.specwatch.model.Durations;
import dev.specwatch.model.Location;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Typed, error-collecting access to one YAML mapping. Every accessor records its key as known;
 * {@link #finish()} then reports the keys nobody asked for, with a "did you mean" hint. A wrong
 * value adds a {@link Problem} and returns the default, so reading goes on and every error is found
 * in one pass.
 */
public final class MapReader {
  private final YamlNode.Mapping mapping;
  private final String path;
  private final Problems problems;
  private final Path baseDir;
  private final Set<String> known = new LinkedHashSet<>();

  private MapReader(YamlNode.Mapping mapping, String path, Problems problems, Path baseDir) {
    this.mapping = mapping;
    this.path = path;
    this.problems = problems;
    this.baseDir = baseDir;
  }

  /**
   * A reader for {@code node}, or empty (with a problem added) when it is not a mapping.
   *
   * @param baseDir where relative {@code *_file} paths are resolved
   */
  public static Optional<MapReader> of(
      YamlNode node, String path, Problems problems, Path baseDir) {
    if (node instanceof YamlNode.Mapping m) {
      return Optional.of(new MapReader(m, path, problems, baseDir));
    }
    problems.add(node.location(), path, "expected a mapping (key: value), got " + node.kind());
    return Optional.empty();
  }

  public Location location() {
    return mapping.location();
  }

  public String path() {
    return path;
  }

  public Problems problems() {
    return problems;
  }

  public Path baseDir() {
    return baseDir;
  }

  public String pathOf(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** Where the key's value was written, or the mapping itself when the key is absent. */
  public Location locationOf(String key) {
    YamlNode node = mapping.entries().get(key);
    return node == null ? mapping.location() : node.location();
  }

  public void error(String key, String message) {
    problems.add(locationOf(key), pathOf(key), message);
  }

  /** An error about the key itself (its name), located at the key rather than its value. */
  public void keyError(String key, String message) {
    known.add(key);
    Location at = mapping.keyLocations().getOrDefault(key, mapping.location());
    problems.add(at, pathOf(key), message);
  }

  /** How many problems have been reported so far, to tell whether a read added any. */
  public int problemCount() {
    return problems.size();
  }

  public boolean has(String key) {
    known.add(key);
    YamlNode node = mapping.entries().get(key);
    return node != null && !(node instanceof YamlNode.Scalar s && s.isNull());
  }

  public Optional<YamlNode> node(String key) {
    return has(key) ? Optional.of(mapping.entries().get(key)) : Optional.empty();
  }

  public Set<String> keys() {
    return Collections.unmodifiableSet(mapping.entries().keySet());
  }

  public Optional<String> optionalString(String key) {
    Optional<YamlNode> node = node(key);
    if (node.isEmpty()) {
      return Optional.empty();
    }
    if (node.get() instanceof YamlNode.Scalar s) {
      return s.invalid() ? Optional.empty() : Optional.of(s.text());
    }
    error(key, "expected a single value, got " + node.get().kind());
    return Optional.empty();
  }

  public String string(String key, String defaultValue) {
    return optionalString(key).orElse(defaultValue);
  }

  /** A required value; adds "is required" when missing and returns "". */
  public String requiredString(String key) {
    Optional<String> value = optionalString(key);
    if (mapping.entries().get(key) instanceof YamlNode.Scalar s && s.invalid()) {
      return "";
    }
    if (value.isEmpty() && !mapping.entries().containsKey(key)) {
      problems.add(mapping.location(), pathOf(key), "is required");
    } else if (value.isEmpty() || value.get().isBlank()) {
      error(key, "must not be empty");
    }
    return value.orElse("");
  }

  /**
   * A secret given inline as {@code key} or read from the file named by {@code key_file}. Values
   * are never quoted in messages.
   */
  public Optional<String> secret(String key) {
    String fileKey = key + "_file";
    boolean inline = has(key);
    boolean fromFile = has(fileKey);
    if (inline && fromFile) {
      error(fileKey, "set either " + key + " or " + fileKey + ", not both");
      return Optional.empty();
    }
    if (inline) {
      Optional<String> value = optionalString(key);
      if (value.isPresent() && value.get().isBlank()) {
        // Typically an environment variable that is set but empty: name it, never echo values.
        error(
            key,
            "is empty: give the secret a value (is its ${VAR} set but empty?) or remove the key");
        return Optional.empty();
      }
      return value;
    }
    if (fromFile) {
      Optional<String> file = optionalString(fileKey);
      if (file.isEmpty()) {
        return Optional.empty();
      }
      Path resolved = baseDir.resolve(file.get());
      try {
        String value = dev.specwatch.model.TextFiles.read(resolved).strip();
        if (value.isEmpty()) {
          error(fileKey, "file " + resolved + " is empty");
          return Optional.empty();
        }
        return Optional.of(value);
      } catch (dev.specwatch.model.TextFiles.Unreadable e) {
        error(fileKey, "cannot read file " + resolved + ": " + e.getMessage());
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  public OptionalDouble optionalNumber(String key, double min, double max) {
    Optional<String> text = optionalString(key);
    if (text.isEmpty()) {
      return OptionalDouble.empty();
    }
    double value;
    try {
      value = Double.parseDouble(text.get().trim());
    } catch (NumberFormatException e) {
      error(key, "expected a number, got '" + text.get() + "'");
      return OptionalDouble.empty();
    }
    if (Double.isNaN(value) || value < min || value > max) {
      error(key, "must be between " + plain(min) + " and " + plain(max) + ", got " + text.get());
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(value);
  }

  public double number(String key, double defaultValue, double min, double max) {
    return optionalNumber(key, min, max).orElse(defaultValue);
  }

  public int integer(String key, int defaultValue, int min, int max) {
    Optional<String> text = optionalString(key);
    if (text.isEmpty()) {
      return defaultValue;
    }
    try {
      int value = Integer.parseInt(text.get().trim());
      if (value < min || value > max) {
        error(key, "must be between " + min + " and " + max + ", got " + value);
        return defaultValue;
      }
      return value;
    } catch (NumberFormatException e) {
      error(key, "expected a whole number, got '" + text.get() + "'");
      return defaultValue;
    }
  }

  public boolean bool(String key, boolean defaultValue) {
    Optional<String> text = optionalString(key);
    if (text.isEmpty()) {
      return defaultValue;
    }
    switch (text.get().trim()) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        error(key, "expected true or false, got '" + text.get() + "'");
        return defaultValue;
    }
  }

  public Optional<Duration> optionalDuration(String key) {
    Optional<String> text = optionalString(key);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    Optional<Duration> parsed = Durations.parse(text.get());
    if (parsed.isEmpty()) {
      error(key, "expected a duration like 30s, 5m, 1h or 7d, got '" + text.get() + "'");
    }
    return parsed;
  }

  public Duration duration(String key, Duration defaultValue) {
    return optionalDuration(key).orElse(defaultValue);
  }

  public Optional<MapReader> map(String key) {
    return node(key).flatMap(n -> of(n, pathOf(key), problems, baseDir));
  }

  /** Each item of a list, read by {@code item} with its path ({@code key[i]}). */
  public <T> List<T> list(String key, BiFunction<YamlNode, String, Optional<T>> item) {
    Optional<YamlNode> node = node(key);
    if (node.isEmpty()) {
      return List.of();
    }
    if (!(node.get() instanceof YamlNode.Sequence seq)) {
      error(key, "expected a list, got " + node.get().kind());
      return List.of();
    }
    List<T> out = new ArrayList<>();
    for (int i = 0; i < seq.items().size(); i++) {
      item.apply(seq.items().get(i), pathOf(key) + "[" + i + "]").ifPresent(out::add);
    }
    return out;
  }

  /** A mapping of plain string values, e.g. label matchers or HTTP headers. */
  public Map<String, String> stringMap(String key) {
    Optional<MapReader> child = map(key);
    if (child.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String k : child.get().keys()) {
      child.get().optionalString(k).ifPresent(v -> out.put(k, v));
    }
    return out;
  }

  /** Reports every key that no accessor asked for, suggesting the closest known key. */
  public void finish() {
    for (Map.Entry<String, Location> entry : mapping.keyLocations().entrySet()) {
      String key = entry.getKey();
      if (known.contains(key)) {
        continue;
      }
      String message = "unknown key";
      Optional<String> hint = closest(key, known);
      message += hint.map(h -> " (did you mean '" + h + "'?)").orElse("");
      problems.add(entry.getValue(), pathOf(key), message);
    }
  }

  /**
   * The candidate nearest to {@code key} by edit distance (case-insensitive, the first of equals),
   * when it is within {@code max(2, length / 3)} edits. Linear in the candidates and cheap for
   * each: a candidate whose length alone puts it out of reach is skipped, and the distance stops at
   * the first row past the best so far (the no-data hints ask this of thousands of label values for
   * each of thousands of recipes).
   */
  public static Optional<String> closest(String key, Collection<String> candidates) {
    String lower = key.toLowerCase(Locale.ROOT);
    int allowed = Math.max(2, key.length() / 3);
    String best = null;
    int limit = allowed; // a candidate must beat this to be the best so far
    int[][] rows = new int[2][];
    for (String candidate : candidates) {
      if (Math.abs(candidate.length() - lower.length()) > limit) {
        continue;
      }
      int d = distance(lower, candidate.toLowerCase(Locale.ROOT), limit, rows);
      if (d <= limit) {
        best = candidate;
        if (d == 0) {
          break;
        }
        limit = d - 1;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    return distance(a, b, Integer.MAX_VALUE - 1, new int[2][]);
  }

  /**
   * Levenshtein distance, or {@code limit + 1} as soon as it is known to exceed {@code limit}
   * (every cell of a row above it). {@code rows} are reused between calls.
   */
  static int distance(String a, String b, int limit, int[][] rows) {
    if (rows[0] == null || rows[0].length < b.length() + 1) {
      rows[0] = new int[b.length() + 1];
      rows[1] = new int[b.length() + 1];
    }
    int[] previous = rows[0];
    int[] current = rows[1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      int rowMin = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
        rowMin = Math.min(rowMin, current[j]);
      }
      if (rowMin > limit) {
        return limit + 1;
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return Math.min(previous[b.length()], limit + 1);
  }

  private static String plain(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }
}
