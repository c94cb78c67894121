package dev.specwatch.cli;

import picocli.CommandLine.Option;

/** The {@code --output text|json} option of the commands with a JSON contract (docs/CLI.md). */
final class OutputOption {
  enum Format {
    text,
    json
  }

  @Option(
      names = "--output",
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = "text (default) or json (docs/CLI.md).")
  Format format;

  boolean json() {
    return format == Format.json;
  }
}
