package dev.specwatch.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Prometheus text exposition (format 0.0.4) read into its families: enough to compare the shape
 * of two expositions (names, types, HELP, label names) and to rewrite sample values. Comments other
 * than HELP and TYPE are skipped, as Prometheus skips them.
 */
public final class Exposition {
  /** One sample line: its metric name, labels in order, the value text, and the line itself. */
  public record Sample(String name, Map<String, String> labels, String value) {}

  /** One family: the name its HELP/TYPE lines give, its type, its HELP text, its samples. */
  public record Family(String name, String type, String help, List<Sample> samples) {
    /** The label name sets its samples use, each sorted. */
    public Set<Set<String>> labelNames() {
      Set<Set<String>> out = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
      for (Sample s : samples) {
        out.add(new TreeSet<>(s.labels().keySet()));
      }
      return out;
    }
  }

  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})?\\s+(\\S+)(\\s+\\d+)?$");
  private static final Pattern LABEL =
      Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"\\s*,?");

  private final Map<String, Family> families;

  private Exposition(Map<String, Family> families) {
    this.families = families;
  }

  public static Exposition parse(String text) {
    Map<String, String> help = new LinkedHashMap<>();
    Map<String, String> type = new LinkedHashMap<>();
    Map<String, List<Sample>> samples = new LinkedHashMap<>();
    for (String line : text.split("\n", -1)) {
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith("# HELP ")) {
        String[] parts = line.substring(7).split(" ", 2);
        help.put(parts[0], parts.length > 1 ? parts[1] : "");
        samples.computeIfAbsent(parts[0], k -> new ArrayList<>());
      } else if (line.startsWith("# TYPE ")) {
        String[] parts = line.substring(7).split(" ", 2);
        type.put(parts[0], parts[1].trim());
        samples.computeIfAbsent(parts[0], k -> new ArrayList<>());
      } else if (!line.startsWith("#")) {
        Sample s = sample(line);
        samples.computeIfAbsent(family(s.name(), type), k -> new ArrayList<>()).add(s);
      }
    }
    Map<String, Family> families = new TreeMap<>();
    samples.forEach(
        (name, list) ->
            families.put(
                name,
                new Family(
                    name, type.getOrDefault(name, "untyped"), help.get(name), List.copyOf(list))));
    return new Exposition(families);
  }

  private static String family(String sample, Map<String, String> types) {
    for (String suffix : List.of("_bucket", "_sum", "_count")) {
      if (sample.endsWith(suffix)
          && types.containsKey(sample.substring(0, sample.length() - suffix.length()))) {
        return sample.substring(0, sample.length() - suffix.length());
      }
    }
    return sample;
  }

  static Sample sample(String line) {
    Matcher m = SAMPLE.matcher(line);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a sample line: " + line);
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (m.group(3) != null) {
      Matcher l = LABEL.matcher(m.group(3));
      int at = 0;
      while (at < m.group(3).length()) {
        if (!l.find(at) || l.start() != at) {
          throw new IllegalArgumentException("bad labels in: " + line);
        }
        labels.put(l.group(1), l.group(2));
        at = l.end();
      }
    }
    return new Sample(m.group(1), labels, m.group(4));
  }

  public Map<String, Family> families() {
    return families;
  }

  public Family family(String name) {
    Family f = families.get(name);
    if (f == null) {
      throw new IllegalArgumentException("no family " + name + " in " + families.keySet());
    }
    return f;
  }
}
