package dev.specwatch.cli;

import dev.specwatch.signals.RecordingRules;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "rules",
    mixinStandardHelpOptions = true,
    description = "Prometheus rules rendered from specwatch's engine profiles.",
    subcommands = {RulesCommand.Render.class})
final class RulesCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "render",
      mixinStandardHelpOptions = true,
      description = {
        "Prints the recording rules (rules/vllm-spec-decode.rules.yaml) to stdout.",
        "They come from the same code as the daemon's queries."
      })
  static final class Render implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().getOut().print(RecordingRules.render());
      spec.commandLine().getOut().flush();
    }
  }
}
