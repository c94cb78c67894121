package dev.specwatch.cli;

import dev.specwatch.alerting.Transition;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.DeliveryResult;
import dev.specwatch.notify.Intent;
import dev.specwatch.notify.Notifier;
import dev.specwatch.notify.Notifiers;
import dev.specwatch.notify.SlackThreadStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "notify",
    mixinStandardHelpOptions = true,
    description = "Notification tools.",
    subcommands = {NotifyCommand.Test.class})
final class NotifyCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "test",
      mixinStandardHelpOptions = true,
      description = {
        "Sends a test message through each notifier (or one) and reports success",
        "or the exact failure. Exit 0 when every notifier accepted it, 1 otherwise."
      })
  static final class Test implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConfigOption config;

    @Option(names = "--notifier", paramLabel = "NAME", description = "Only this notifier.")
    String only;

    @Override
    public Integer call() throws IOException {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Optional<SpecwatchConfig> c = config.load(err);
      if (c.isEmpty()) {
        return ExitCodes.INVALID_INPUT;
      }
      // A scratch thread store: a test message must not become an alert's Slack thread.
      Path scratch = Files.createTempDirectory("specwatch-notify-test");
      Map<String, Notifier> notifiers =
          Notifiers.create(c.get(), new SlackThreadStore(scratch), Clock.systemUTC());
      if (only != null && !notifiers.containsKey(only)) {
        err.println(
            "specwatch notify test: no notifier named '"
                + only
                + "'; configured: "
                + String.join(", ", notifiers.keySet()));
        return ExitCodes.INVALID_INPUT;
      }
      if (notifiers.isEmpty()) {
        err.println("specwatch notify test: no notifiers configured");
        return ExitCodes.INVALID_INPUT;
      }
      Instant now = Instant.now();
      Transition test =
          new Transition(
              0,
              "specwatch/test",
              "specwatch-test",
              "test",
              null,
              Transition.Kind.FIRING,
              "test notification from `specwatch notify test`; no action" + " needed",
              null,
              0,
              c.get().evaluation().window(),
              now,
              now,
              "info",
              false,
              Map.of(),
              Map.of(),
              List.of());
      boolean allOk = true;
      for (Notifier n : notifiers.values()) {
        if (only != null && !only.equals(n.name())) {
          continue;
        }
        DeliveryResult r = n.send(Intent.of(n.name(), Intent.Kind.FIRING, test, now));
        if (r instanceof DeliveryResult.Delivered) {
          out.println(n.name() + ": ok");
        } else {
          allOk = false;
          String why =
              r instanceof DeliveryResult.Permanent p
                  ? p.reason()
                  : ((DeliveryResult.Retry) r).reason();
          out.println(n.name() + ": FAILED: " + why);
        }
      }
      out.flush();
      return allOk ? ExitCodes.OK : ExitCodes.SOFTWARE;
    }
  }
}
