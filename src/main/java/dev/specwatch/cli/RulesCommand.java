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

    /** How the rules are written. */
    enum Format {
      /** A Prometheus rule file ({@code rule_files:}). */
      prometheus,
      /** A prometheus-operator {@code PrometheusRule} (monitoring.coreos.com/v1). */
      prometheus_operator
    }

    @picocli.CommandLine.Option(
        names = "--format",
        paramLabel = "FORMAT",
        defaultValue = "prometheus",
        converter = FormatConverter.class,
        description =
            "prometheus (a rule file, the default) or prometheus-operator (a PrometheusRule for"
                + " Kubernetes).")
    Format format;

    @picocli.CommandLine.Option(
        names = "--name",
        paramLabel = "NAME",
        description =
            "The PrometheusRule's metadata.name (default: specwatch-recording-rules, or"
                + " specwatch-alerts with --alerts).")
    String name;

    @picocli.CommandLine.Option(
        names = "--namespace",
        paramLabel = "NAMESPACE",
        description = "The PrometheusRule's metadata.namespace (default: none, kubectl's).")
    String namespace;

    @picocli.CommandLine.Option(
        names = "--label",
        paramLabel = "KEY=VALUE",
        description =
            "A label of the PrometheusRule, repeatable: what the Prometheus resource's"
                + " ruleSelector matches (kube-prometheus-stack: release=<its release>).")
    java.util.Map<String, String> labels = new java.util.LinkedHashMap<>();

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      String rules;
      if (!alerts) {
        rules = RecordingRules.render();
      } else {
        if (config == null) {
          throw new UsageException("--alerts needs --config FILE");
        }
        SpecwatchConfig c = ConfigLoader.fromSystemEnvironment().load(config);
        rules =
            AlertingRules.render(c.policies(), c.evaluation().window(), c.evaluation().interval());
      }
      if (format == Format.prometheus_operator) {
        String metadataName =
            name != null ? name : alerts ? "specwatch-alerts" : "specwatch-recording-rules";
        rules = PrometheusRules.wrap(rules, metadataName, namespace, labels);
      }
      out.print(rules);
      out.flush();
      return ExitCodes.OK;
    }

    static final class FormatConverter implements picocli.CommandLine.ITypeConverter<Format> {
      @Override
      public Format convert(String value) {
        return switch (value) {
          case "prometheus" -> Format.prometheus;
          case "prometheus-operator" -> Format.prometheus_operator;
          default ->
              throw new picocli.CommandLine.TypeConversionException(
                  "expected prometheus or prometheus-operator, got '" + value + "'");
        };
      }
    }
  }
}
