package dev.specwatch.config;

import dev.specwatch.model.Location;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.TextFiles;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.MapReader;
import dev.specwatch.yaml.Problems;
import dev.specwatch.yaml.YamlParser;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;

/**
 * Loads the config file and every policy file it points to, in one pass that collects every problem
 * (file:line:col, key path, message) before failing. Secrets are read but never quoted. The config
 * file is read by {@link ConfigReader}, the policies by {@link PolicyReader}.
 */
public final class ConfigLoader {
  private final Function<String, String> environment;

  public ConfigLoader(Function<String, String> environment) {
    this.environment = environment;
  }

  public static ConfigLoader fromSystemEnvironment() {
    return new ConfigLoader(System::getenv);
  }

  /**
   * @throws InvalidInputException with every problem found
   */
  public SpecwatchConfig load(Path file) {
    Problems problems = new Problems();
    Optional<MapReader> root = readFile(file, problems);
    SpecwatchConfig config =
        root.map(r -> new ConfigReader(new PolicyReader(this::readFile)).read(r, file, problems))
            .orElse(null);
    problems.throwIfAny();
    return config;
  }

  /** One YAML file as a location-aware map; a problem (with the reason) when it cannot be read. */
  Optional<MapReader> readFile(Path file, Problems problems) {
    Location start = new Location(file.toString(), 1, 1);
    String text;
    try {
      text = TextFiles.read(file);
    } catch (TextFiles.Unreadable e) {
      String reason = e.getMessage();
      problems.add(start, "", reason.equals("file not found") ? reason : "cannot read: " + reason);
      return Optional.empty();
    }
    Path dir = file.toAbsolutePath().getParent();
    return new YamlParser(file.toString(), problems, environment)
        .parse(text)
        .flatMap(node -> MapReader.of(node, "", problems, dir));
  }

  /** Reads one file into a map, reporting problems: how the policy reader gets its files. */
  @FunctionalInterface
  interface FileReader {
    Optional<MapReader> read(Path file, Problems problems);
  }
}
