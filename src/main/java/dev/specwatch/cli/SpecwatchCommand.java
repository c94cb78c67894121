package dev.specwatch.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

@Command(
    name = "specwatch",
    mixinStandardHelpOptions = true,
    versionProvider = SpecwatchCommand.Version.class,
    description =
        "Watches the efficiency of speculative decoding (MTP, EAGLE, draft models) in LLM"
            + " serving.",
    subcommands = {
      ValidateCommand.class,
      CheckCommand.class,
      RunCommand.class,
      SilenceCommand.class,
      StateCommand.class,
      NotifyCommand.class,
      DigestCommand.class,
      AdviseCommand.class,
      ReplayCommand.class,
      SimulateCommand.class,
      RulesCommand.class,
      PoliciesCommand.class,
      DiscoverCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:a threshold is breached (check) or an unexpected failure",
      "2:invalid configuration, input or usage",
      "3:the datasource could not be queried"
    })
final class SpecwatchCommand implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties properties = new Properties();
      try (InputStream in =
          Version.class.getResourceAsStream("/dev/specwatch/version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      }
      return new String[] {
        "specwatch " + properties.getProperty("version", "unknown"),
        "Java " + System.getProperty("java.version")
      };
    }
  }
}
