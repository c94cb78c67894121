package dev.specwatch.cli;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.yaml.InvalidInputException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The {@code --config} option shared by every command that reads the configuration. */
final class ConfigOption {
  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      required = true,
      description = "specwatch configuration (YAML), e.g. deploy/specwatch.example.yaml.")
  Path file;

  /** The loaded config, or empty after printing every problem to {@code err}. */
  Optional<SpecwatchConfig> load(PrintWriter err) {
    try {
      return Optional.of(ConfigLoader.fromSystemEnvironment().load(file));
    } catch (InvalidInputException e) {
      e.problems().forEach(err::println);
      err.println(e.problems().size() + (e.problems().size() == 1 ? " error" : " errors"));
      err.flush();
      return Optional.empty();
    }
  }
}
