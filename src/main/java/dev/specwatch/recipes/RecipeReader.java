package dev.specwatch.recipes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.model.Location;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problems;
import dev.specwatch.yaml.YamlNode;
import dev.specwatch.yaml.YamlParser;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a spark-vllm-docker recipe: fills the {@code command} template's {@code {name}}
 * placeholders from {@code defaults} (one pass, {@code {{ }}} for literal braces, as Python's
 * {@code str.format}), splits it like a shell, and finds {@code vllm serve MODEL}, the first {@code
 * --served-model-name} and the speculative config in any of its three shapes: inline JSON, a
 * placeholder whose JSON is in {@code defaults.speculative_config}, or dotted flags ({@code
 * --speculative-config.num_speculative_tokens 3}). A broken recipe is an {@link
 * InvalidInputException} naming file:line.
 */
public final class RecipeReader {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern FIELD = Pattern.compile("\\{\\{|}}|\\{([A-Za-z_][A-Za-z0-9_]*)}");
  private static final Pattern SPEC_FLAG =
      Pattern.compile("--speculative[-_]config(?:\\.([A-Za-z_]+))?(?:=(.*))?", Pattern.DOTALL);

  /** The keys run-recipe.py requires (load_recipe: {@code required}). */
  static final List<String> REQUIRED = List.of("name", "recipe_version", "container", "command");

  private RecipeReader() {}

  public static Recipe read(Path file) throws IOException {
    String text;
    try {
      text = dev.specwatch.model.TextFiles.read(file);
    } catch (dev.specwatch.model.TextFiles.Unreadable e) {
      throw problem(file, 1, "", "cannot read: " + e.getMessage());
    }
    Problems problems = new Problems();
    Optional<YamlNode> root = new YamlParser(file.toString(), problems, null).parse(text);
    problems.throwIfAny();
    if (!(root.orElseThrow() instanceof YamlNode.Mapping recipe)) {
      throw problem(file, 1, "", "a recipe is a mapping (name, model, defaults, command)");
    }
    // run-recipe.py (eugr/spark-vllm-docker, load_recipe) refuses a recipe without these.
    Problems missing = new Problems();
    for (String key : REQUIRED) {
      if (!recipe.entries().containsKey(key)) {
        missing.add(
            new Location(file.toString(), recipe.location().line(), 1),
            key,
            "is required by spark-vllm-docker's run-recipe.py ("
                + String.join(", ", REQUIRED)
                + ")");
      }
    }
    missing.throwIfAny();
    String stem = file.getFileName().toString().replaceFirst("\\.ya?ml$", "");
    Map<String, String> defaults = new LinkedHashMap<>();
    Map<String, Location> defaultAt = new LinkedHashMap<>();
    if (recipe.entries().get("defaults") instanceof YamlNode.Mapping d) {
      d.entries()
          .forEach(
              (k, v) -> {
                if (v instanceof YamlNode.Scalar s && !s.isNull()) {
                  defaults.put(k, s.text());
                  defaultAt.put(k, s.location());
                }
              });
    }
    Optional<String> model = scalar(recipe, "model");
    if (!(recipe.entries().get("command") instanceof YamlNode.Scalar command) || command.isNull()) {
      throw problem(
          file, recipe.location().line(), "command", "is required: the vllm serve command");
    }
    Location commandAt = recipe.keyLocations().get("command");
    String rendered = render(command.text(), defaults, file, text, commandAt);
    List<String> args = split(rendered);

    String served = null;
    String firstServedName = null;
    Map<String, String> dotted = new LinkedHashMap<>();
    String inline = null;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("serve")
          && i > 0
          && args.get(i - 1).endsWith("vllm")
          && i + 1 < args.size()
          && !args.get(i + 1).startsWith("-")) {
        served = args.get(i + 1);
      } else if (a.equals("--model") && i + 1 < args.size() && served == null) {
        served = args.get(i + 1);
      } else if (a.startsWith("--served-model-name") || a.startsWith("--served_model_name")) {
        int eq = a.indexOf('=');
        if (eq > 0) {
          firstServedName = firstServedName == null ? a.substring(eq + 1) : firstServedName;
        } else if (i + 1 < args.size() && firstServedName == null) {
          firstServedName = args.get(i + 1);
        }
      } else {
        Matcher m = SPEC_FLAG.matcher(a);
        if (m.matches()) {
          String value =
              m.group(2) != null ? m.group(2) : i + 1 < args.size() ? args.get(i + 1) : null;
          if (value == null) {
            throw problem(file, lineOf(text, a, commandAt), "command", a + " has no value");
          }
          if (m.group(1) == null) {
            inline = value;
          } else {
            dotted.put(m.group(1), value);
          }
        }
      }
    }
    String modelName =
        firstServedName != null ? firstServedName : served != null ? served : model.orElse(null);
    if (modelName == null) {
      throw problem(
          file,
          commandAt.line(),
          "command",
          "names no model: expected `vllm serve MODEL` (or --served-model-name, or `model:`)");
    }
    Optional<Recipe.Speculation> speculation = Optional.empty();
    if (inline != null) {
      boolean placeholder = command.text().contains("{speculative_config}");
      int line =
          placeholder && defaultAt.containsKey("speculative_config")
              ? defaultAt.get("speculative_config").line()
              : lineOf(text, "--speculative", commandAt);
      String key = placeholder ? "defaults.speculative_config" : "command";
      JsonNode json;
      try {
        json = JSON.readTree(inline);
      } catch (JsonProcessingException e) {
        throw problem(
            file,
            line,
            key,
            "the speculative config is not valid JSON ("
                + e.getOriginalMessage().lines().findFirst().orElse("")
                + "): "
                + abbreviate(inline));
      }
      if (json == null || !json.isObject()) {
        throw problem(file, line, key, "the speculative config must be a JSON object");
      }
      speculation =
          Optional.of(
              speculation(
                  json.path("method").asText("unspecified"),
                  json.get("num_speculative_tokens") == null
                      ? null
                      : json.get("num_speculative_tokens").asText(),
                  placeholder ? "placeholder" : "inline",
                  file,
                  line,
                  key));
    } else if (!dotted.isEmpty()) {
      speculation =
          Optional.of(
              speculation(
                  dotted.getOrDefault("method", "unspecified"),
                  dotted.get("num_speculative_tokens"),
                  "dotted",
                  file,
                  lineOf(text, "--speculative", commandAt),
                  "command"));
    }
    List<String> warnings = new ArrayList<>();
    loneBrace(command.text())
        .ifPresent(
            brace ->
                warnings.add(
                    file
                        + ":"
                        + lineOf(text, brace, commandAt)
                        + ":1: warning: command: a single brace ("
                        + abbreviate(brace)
                        + ") makes run-recipe.py's str.format fail: write literal braces doubled,"
                        + " '{{\"method\":\"mtp\",\"num_speculative_tokens\":3}}', or move the JSON to"
                        + " defaults.speculative_config and write '{speculative_config}'"));
    return new Recipe(file, stem, modelName, speculation, warnings);
  }

  private static Recipe.Speculation speculation(
      String method, String k, String shape, Path file, int line, String key) {
    if (k == null) {
      throw problem(file, line, key, "the speculative config sets no num_speculative_tokens");
    }
    try {
      int n = Integer.parseInt(k.strip());
      if (n < 1 || n > 64) {
        throw problem(file, line, key, "num_speculative_tokens " + n + " is out of range 1..64");
      }
      return new Recipe.Speculation(method, n, shape);
    } catch (NumberFormatException e) {
      throw problem(file, line, key, "num_speculative_tokens '" + k + "' is not a whole number");
    }
  }

  /** One {@code str.format} pass: {@code {name}} from defaults, {@code {{ }}} for braces. */
  static String render(
      String template, Map<String, String> defaults, Path file, String text, Location at) {
    Matcher m = FIELD.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      if (m.group(1) == null) {
        replacement = m.group().substring(1);
      } else if (defaults.containsKey(m.group(1))) {
        replacement = defaults.get(m.group(1));
      } else {
        throw problem(
            file,
            lineOf(text, m.group(), at),
            "command",
            "placeholder " + m.group() + " has no value in defaults");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /**
   * The text around the first brace that Python's {@code str.format} would not accept: neither
   * doubled ({@code {{ }}}) nor a {@code {placeholder}}; empty when there is none.
   */
  static Optional<String> loneBrace(String template) {
    Matcher m = FIELD.matcher(template);
    StringBuilder rest = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(rest, " ".repeat(m.group().length()));
    }
    m.appendTail(rest);
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c == '{' || c == '}') {
        int end = template.indexOf('\n', i);
        return Optional.of(template.substring(i, end < 0 ? template.length() : end).strip());
      }
    }
    return Optional.empty();
  }

  /** Splits a command like a POSIX shell: quotes, backslash escapes and line continuations. */
  static List<String> split(String command) {
    List<String> out = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (int i = 0; i < command.length(); i++) {
      char c = command.charAt(i);
      if (quote == '\'') {
        if (c == '\'') {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (quote == '"') {
        if (c == '"') {
          quote = 0;
        } else if (c == '\\'
            && i + 1 < command.length()
            && "\"\\$`".indexOf(command.charAt(i + 1)) >= 0) {
          word.append(command.charAt(++i));
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (c == '\\' && i + 1 < command.length()) {
        char next = command.charAt(++i);
        if (next != '\n') {
          word.append(next);
          inWord = true;
        }
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          out.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      out.add(word.toString());
    }
    return out;
  }

  /** The first line of the file (1-based) holding {@code snippet}, else the command's line. */
  private static int lineOf(String text, String snippet, Location fallback) {
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].contains(snippet)) {
        return i + 1;
      }
    }
    return fallback == null ? 1 : fallback.line();
  }

  private static Optional<String> scalar(YamlNode.Mapping m, String key) {
    return m.entries().get(key) instanceof YamlNode.Scalar s && !s.isNull()
        ? Optional.of(s.text())
        : Optional.empty();
  }

  private static String abbreviate(String s) {
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  private static InvalidInputException problem(Path file, int line, String key, String message) {
    Problems p = new Problems();
    p.add(new Location(file.toString(), line, 1), key, message);
    return new InvalidInputException(p.sorted());
  }
}
