package dev.specwatch.cli;

import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description = {
      "Checks a configuration and every policy file it points to, without contacting anything.",
      "Exit 0 when valid; exit 2 printing every error as FILE:LINE:COL: key.path: message."
    })
final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Optional<SpecwatchConfig> loaded = config.load(spec.commandLine().getErr());
    if (loaded.isEmpty()) {
      return ExitCodes.INVALID_INPUT;
    }
    SpecwatchConfig c = loaded.get();
    out.printf(
        "%s: valid; %d recipe(s) from %s%n", config.file, c.policies().size(), c.policiesDir());
    for (Policy p : c.policies()) {
      out.printf(
          "  %s (%s, k=%d) %s%n", p.recipe(), p.engine(), p.numSpeculativeTokens(), p.match());
    }
    out.flush();
    return ExitCodes.OK;
  }
}
