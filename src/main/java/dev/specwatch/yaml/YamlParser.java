package dev.specwatch.yaml;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.specwatch.model.Location;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses one YAML document into {@link YamlNode}s with locations, using Jackson's streaming YAML
 * parser. Syntax errors, duplicate keys and undefined {@code ${VAR}} references become {@link
 * Problem}s; nothing here throws for bad input.
 */
public final class YamlParser {
  private static final YAMLFactory FACTORY = YAMLFactory.builder().build();
  private static final Pattern VARIABLE =
      Pattern.compile("\\$\\$|\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

  private final String fileName;
  private final Problems problems;
  private final Function<String, String> environment;

  /**
   * @param environment resolves {@code ${VAR}}; returns null when undefined. Null disables
   *     interpolation (the text is taken literally).
   */
  public YamlParser(String fileName, Problems problems, Function<String, String> environment) {
    this.fileName = fileName;
    this.problems = problems;
    this.environment = environment;
  }

  /** The document's root, or empty when the document could not be parsed (a problem is added). */
  public Optional<YamlNode> parse(String text) {
    try (YAMLParser parser = FACTORY.createParser(text)) {
      JsonToken token = parser.nextToken();
      if (token == null) {
        problems.add(new Location(fileName, 1, 1), "", "the file is empty");
        return Optional.empty();
      }
      YamlNode root = readValue(parser, "");
      return Optional.of(root);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      problems.add(location(at), "", "not valid YAML: " + firstLine(e.getOriginalMessage()));
      return Optional.empty();
    } catch (IOException e) {
      problems.add(new Location(fileName, 1, 1), "", "cannot read: " + e.getMessage());
      return Optional.empty();
    }
  }

  private YamlNode readValue(JsonParser parser, String path) throws IOException {
    Location at = location(parser.currentTokenLocation());
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT:
        return readMapping(parser, path, at);
      case START_ARRAY:
        List<YamlNode> items = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          items.add(readValue(parser, path + "[" + items.size() + "]"));
        }
        return new YamlNode.Sequence(items, at);
      case VALUE_NULL:
        return new YamlNode.Scalar("", true, false, at);
      default:
        String raw = parser.getText();
        Optional<String> text = interpolate(raw, path, at);
        return new YamlNode.Scalar(text.orElse(raw), false, text.isEmpty(), at);
    }
  }

  private YamlNode readMapping(JsonParser parser, String path, Location at) throws IOException {
    Map<String, YamlNode> entries = new LinkedHashMap<>();
    Map<String, Location> keys = new LinkedHashMap<>();
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String key = parser.currentName();
      Location keyAt = location(parser.currentTokenLocation());
      parser.nextToken();
      String childPath = path.isEmpty() ? key : path + "." + key;
      YamlNode value = readValue(parser, childPath);
      if (entries.containsKey(key)) {
        problems.add(
            keyAt, childPath, "duplicate key (first set at line " + keys.get(key).line() + ")");
        continue;
      }
      entries.put(key, value);
      keys.put(key, keyAt);
    }
    return new YamlNode.Mapping(entries, keys, at);
  }

  /**
   * The text with ${VAR}s (and ${VAR:-default}s, the default taken when VAR is unset or empty)
   * replaced, or empty when a variable without a default is undefined (reported).
   */
  private Optional<String> interpolate(String raw, String path, Location at) {
    if (environment == null || raw.indexOf('$') < 0) {
      return Optional.of(raw);
    }
    boolean undefined = false;
    Matcher m = VARIABLE.matcher(raw);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      if (m.group(1) == null) {
        replacement = "$"; // "$$" escapes a literal dollar
      } else {
        replacement = environment.apply(m.group(1));
        if ((replacement == null || replacement.isEmpty()) && m.group(2) != null) {
          replacement = m.group(2); // ${VAR:-default}, as in a shell: unset or empty
        }
        if (replacement == null) {
          problems.add(at, path, "environment variable " + m.group(1) + " is not set");
          undefined = true;
          replacement = "";
        }
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return undefined ? Optional.empty() : Optional.of(out.toString());
  }

  private Location location(JsonLocation at) {
    if (at == null || at.getLineNr() < 1) {
      return new Location(fileName, 1, 1);
    }
    return new Location(fileName, at.getLineNr(), Math.max(1, at.getColumnNr()));
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "syntax error";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).trim();
  }
}
