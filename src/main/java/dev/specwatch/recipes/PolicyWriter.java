package dev.specwatch.recipes;

import dev.specwatch.model.Location;
import dev.specwatch.yaml.Problems;
import dev.specwatch.yaml.YamlNode;
import dev.specwatch.yaml.YamlParser;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Writes the policy of an imported recipe, or updates an existing one in place: a re-import
 * rewrites only the values that come from the recipe ({@code num_speculative_tokens}, {@code
 * match.model_name}, {@code imported_from}) where they stand in the text, so the user's thresholds,
 * {@code for}, notify settings, comments and layout are kept byte for byte.
 */
public final class PolicyWriter {
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./][A-Za-z0-9_./@+-]*");

  private PolicyWriter() {}

  /** A new policy for {@code recipe}; {@code recipePath} as written in it. */
  public static String create(Recipe recipe, Optional<String> job, String recipePath) {
    Recipe.Speculation s = recipe.speculation().orElseThrow();
    return "# Imported from "
        + recipePath
        + " by `specwatch policies import`. A re-import updates num_speculative_tokens,\n"
        + "# match.model_name and imported_from; everything else here is yours to edit.\n"
        + "recipe: "
        + scalar(recipe.stem())
        + "\nmatch:\n  model_name: "
        + scalar(recipe.modelName())
        + "\n"
        + job.map(j -> "  job: " + scalar(j) + "\n").orElse("")
        + "num_speculative_tokens: "
        + s.k()
        + "\nimported_from: {recipe: "
        + scalar(recipePath)
        + ", method: "
        + scalar(s.method())
        + "}\n"
        + "thresholds:\n"
        + "  # Learned change detection (docs/DETECTION.md): no threshold to guess; it says\n"
        + "  # \"learning\" until Prometheus holds a day of this recipe's history. Static lines fitted\n"
        + "  # to that history: `specwatch policies suggest --recipe "
        + recipe.stem()
        + " --write`.\n"
        + "  change: {min_relative_drop: 0.10}\n";
  }

  /** One value to rewrite in place. */
  private record Edit(int line, int start, int end, String text) {}

  /**
   * {@code existing} with the recipe's values; unchanged text when nothing differs.
   *
   * @throws IllegalArgumentException when the existing policy is not valid YAML
   */
  public static String update(String existing, String fileName, Recipe recipe, String recipePath) {
    Recipe.Speculation s = recipe.speculation().orElseThrow();
    Problems problems = new Problems();
    Optional<YamlNode> root = new YamlParser(fileName, problems, null).parse(existing);
    if (root.isEmpty() || !(root.get() instanceof YamlNode.Mapping m)) {
      throw new IllegalArgumentException(fileName + " is not a policy mapping; not updated");
    }
    String[] lines = existing.split("\n", -1);
    List<Edit> edits = new ArrayList<>();
    List<String> appended = new ArrayList<>();
    edit(lines, m, "num_speculative_tokens", Integer.toString(s.k()), edits);
    if (m.entries().get("match") instanceof YamlNode.Mapping match
        && match.entries().containsKey("model_name")) {
      edit(lines, match, "model_name", scalar(recipe.modelName()), edits);
    }
    if (m.entries().get("imported_from") instanceof YamlNode.Mapping from) {
      edit(lines, from, "recipe", scalar(recipePath), edits);
      edit(lines, from, "method", scalar(s.method()), edits);
    } else {
      appended.add(
          "imported_from: {recipe: "
              + scalar(recipePath)
              + ", method: "
              + scalar(s.method())
              + "}");
    }
    edits.sort(Comparator.comparingInt(Edit::line).thenComparingInt(Edit::start).reversed());
    for (Edit e : edits) {
      String l = lines[e.line() - 1];
      lines[e.line() - 1] = l.substring(0, e.start()) + e.text() + l.substring(e.end());
    }
    String out = String.join("\n", lines);
    if (!appended.isEmpty()) {
      out = (out.endsWith("\n") ? out : out + "\n") + String.join("\n", appended) + "\n";
    }
    return out;
  }

  private static void edit(
      String[] lines, YamlNode.Mapping m, String key, String text, List<Edit> edits) {
    if (!(m.entries().get(key) instanceof YamlNode.Scalar value)) {
      return;
    }
    Location at = value.location();
    String line = lines[at.line() - 1];
    int start = at.column() - 1;
    int end = scalarEnd(line, start);
    if (!line.substring(start, end).equals(text)) {
      edits.add(new Edit(at.line(), start, end, text));
    }
  }

  /** Where the scalar starting at {@code start} ends: its closing quote, or before , } ] or #. */
  static int scalarEnd(String line, int start) {
    if (start < line.length() && (line.charAt(start) == '"' || line.charAt(start) == '\'')) {
      char q = line.charAt(start);
      for (int i = start + 1; i < line.length(); i++) {
        if (line.charAt(i) == '\\' && q == '"') {
          i++;
        } else if (line.charAt(i) == q) {
          return i + 1;
        }
      }
      return line.length();
    }
    int end = start;
    while (end < line.length()) {
      char c = line.charAt(end);
      if (c == ','
          || c == '}'
          || c == ']'
          || (c == '#' && end > 0 && line.charAt(end - 1) == ' ')) {
        break;
      }
      end++;
    }
    while (end > start && line.charAt(end - 1) == ' ') {
      end--;
    }
    return end;
  }

  /** A YAML scalar: plain when safe, else double-quoted. */
  static String scalar(String value) {
    if (PLAIN.matcher(value).matches()
        && !List.of("true", "false", "null", "yes", "no", "on", "off", "~")
            .contains(value.toLowerCase(Locale.ROOT))) {
      return value;
    }
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static final List<String> STATIC_KEYS =
      List.of("acceptance_rate", "mean_accepted_length", "position_acceptance");

  /**
   * {@code existing} with the static threshold lines ({@code acceptance_rate}, {@code
   * mean_accepted_length}, {@code position_acceptance}) of {@code block} (a {@code thresholds:}
   * mapping, as {@link Suggestion#yaml} writes it); every other line, including other thresholds
   * such as {@code change}, is kept.
   *
   * @throws IllegalArgumentException when {@code thresholds} is written inline ({@code {...}})
   */
  public static String withThresholds(String existing, String block) {
    List<String> lines = new ArrayList<>(List.of(existing.split("\n", -1)));
    List<String> children =
        block.lines().skip(1).filter(l -> !l.isBlank()).toList(); // drop "thresholds:"
    int t = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).matches("thresholds:\\s*(#.*)?")) {
        t = i;
        break;
      }
      if (lines.get(i).startsWith("thresholds:")) {
        throw new IllegalArgumentException(
            "thresholds is written inline; replace it with the suggestion by hand");
      }
    }
    if (t < 0) {
      String out = existing.endsWith("\n") || existing.isEmpty() ? existing : existing + "\n";
      return out + block;
    }
    int end = t + 1;
    int childIndent = -1;
    while (end < lines.size() && (lines.get(end).isBlank() || lines.get(end).startsWith(" "))) {
      String l = lines.get(end);
      if (childIndent < 0 && !l.isBlank() && !l.strip().startsWith("#")) {
        childIndent = l.length() - l.stripLeading().length();
      }
      end++;
    }
    int indent = childIndent < 0 ? 2 : childIndent;
    List<String> kept = new ArrayList<>();
    boolean skipping = false;
    for (int i = t + 1; i < end; i++) {
      String l = lines.get(i);
      int li = l.length() - l.stripLeading().length();
      if (!l.isBlank() && li == indent && !l.strip().startsWith("#")) {
        String key = l.strip().split(":", 2)[0].replace("\"", "");
        skipping = STATIC_KEYS.contains(key);
      } else if (!l.isBlank() && li <= indent) {
        skipping = false;
      }
      if (!skipping) {
        kept.add(l);
      }
    }
    List<String> fresh = new ArrayList<>();
    for (String c : children) {
      fresh.add(" ".repeat(indent) + c.substring(2));
    }
    List<String> out = new ArrayList<>(lines.subList(0, t + 1));
    out.addAll(fresh);
    out.addAll(kept);
    out.addAll(lines.subList(end, lines.size()));
    return String.join("\n", out);
  }

  /** A line diff of two texts of a policy, for --dry-run. */
  public static String diff(String name, String before, String after) {
    if (before.equals(after)) {
      return "";
    }
    StringBuilder out = new StringBuilder("--- a/" + name + "\n+++ b/" + name + "\n");
    if (before.isEmpty()) {
      after.lines().forEach(l -> out.append('+').append(l).append('\n'));
      return out.toString();
    }
    String[] a = before.split("\n", -1);
    String[] b = after.split("\n", -1);
    int n = Math.max(a.length, b.length);
    for (int i = 0; i < n; i++) {
      String x = i < a.length ? a[i] : null;
      String y = i < b.length ? b[i] : null;
      if (x != null && x.equals(y)) {
        continue;
      }
      out.append("@@ line ").append(i + 1).append(" @@\n");
      if (x != null) {
        out.append('-').append(x).append('\n');
      }
      if (y != null) {
        out.append('+').append(y).append('\n');
      }
    }
    return out.toString();
  }
}
