package dev.specwatch.cli;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.signals.AlertingRules;
import dev.specwatch.signals.RecordingRules;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "rules",
    mixinStandardHelpOptions = true,
    description = "Renders Prometheus rules from specwatch's engine profiles and policies.",
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
        "Prints the recording rules, or the policies as Prometheus alerting rules.",
        "Without --alerts: rules/vllm-spec-decode.rules.yaml; with --alerts: the alerting rules equivalent to the policies' thresholds (alerts/prometheus/specwatch.alerts.yaml). Both come from the daemon's query code."
      })
  static final class Render implements Callable<Integer> {
    @Spec CommandSpec spec;

    @picocli.CommandLine.Option(
        names = "--alerts",
        description =
            "Print Prometheus alerting rules equivalent to the threshold rules of the"
                + " policies (needs --config) instead of the recording rules.")
    boolean alerts;

    @picocli.CommandLine.Option(
        names = {"-c", "--config"},
        paramLabel = "FILE",
        description = "specwatch configuration, for --alerts.")
    Path config;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      if (!alerts) {
        out.print(RecordingRules.render());
        out.flush();
        return ExitCodes.OK;
      }
      if (config == null) {
        throw new UsageException("--alerts needs --config FILE");
      }
      SpecwatchConfig c = ConfigLoader.fromSystemEnvironment().load(config);
      out.print(
          AlertingRules.render(c.policies(), c.evaluation().window(), c.evaluation().interval()));
      out.flush();
      return ExitCodes.OK;
    }
  }
}
