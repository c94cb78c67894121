package dev.specwatch.cli;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --config} option shared by every command that reads the configuration. */
final class ConfigOption {
  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      required = true,
      description = "specwatch configuration (YAML), e.g. deploy/specwatch.example.yaml.")
  Path file;

  /**
   * The loaded config.
   *
   * @throws dev.specwatch.yaml.InvalidInputException with every problem (exit code 2)
   */
  SpecwatchConfig load() {
    return ConfigLoader.fromSystemEnvironment().load(file);
  }
}
