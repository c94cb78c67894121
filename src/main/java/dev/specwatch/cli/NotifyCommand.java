package dev.specwatch.cli;

import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.DeliveryResult;
import dev.specwatch.notify.Intent;
import dev.specwatch.notify.Notifier;
import dev.specwatch.notify.Notifiers;
import dev.specwatch.notify.slack.SlackMessages;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.signals.EvaluationJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "notify",
    mixinStandardHelpOptions = true,
    description = "Checks the configured notifiers.",
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
        "Sends a test message through each notifier (or one) and reports the result.",
        "Prints success or the exact failure per notifier. Exit 0 when every notifier accepted it, 1 otherwise."
      })
  static final class Test implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConfigOption config;

    @Option(names = "--notifier", paramLabel = "NAME", description = "Only this notifier.")
    String only;

    @Mixin OutputOption output;

    @Override
    public Integer call() throws IOException {
      PrintWriter out = spec.commandLine().getOut();
      SpecwatchConfig c = config.load();
      // A scratch thread store: a test message must not become an alert's Slack thread.
      Path scratch = Files.createTempDirectory("specwatch-notify-test");
      Map<String, Notifier> notifiers =
          Notifiers.create(c, new SlackThreadStore(scratch), Clock.systemUTC());
      if (only != null && !notifiers.containsKey(only)) {
        throw new UsageException(
            "no notifier named '"
                + only
                + "'; configured: "
                + String.join(", ", notifiers.keySet()));
      }
      if (notifiers.isEmpty()) {
        throw new UsageException("no notifiers configured");
      }
      Instant now = Instant.now();
      AlertKey key = AlertKey.specwatch(SlackMessages.TEST_RULE);
      Transition test =
          Transition.builder(key, Transition.Kind.FIRING, now)
              .reason("test notification from `specwatch notify test`; no action needed")
              .window(c.evaluation().window())
              .severity(dev.specwatch.model.Severity.INFO)
              .build();
      boolean allOk = true;
      List<Object> results = new ArrayList<>();
      for (Notifier n : notifiers.values()) {
        if (only != null && !only.equals(n.name())) {
          continue;
        }
        DeliveryResult r = n.send(Intent.of(n.name(), Intent.Kind.FIRING, test, now));
        String why = null;
        if (r instanceof DeliveryResult.Permanent p) {
          why = p.reason();
        } else if (r instanceof DeliveryResult.Retry retry) {
          why = retry.reason();
        } else if (r instanceof DeliveryResult.Paced) {
          why = "rate limited by the receiver; try again in a second";
        }
        allOk &= why == null;
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("notifier", n.name());
        result.put("ok", why == null);
        result.put("error", why);
        results.add(result);
        if (!output.json()) {
          out.println(n.name() + (why == null ? ": ok" : ": FAILED: " + why));
        }
      }
      if (output.json()) {
        out.println(EvaluationJson.MAPPER.writeValueAsString(Map.of("results", results)));
      }
      out.flush();
      return allOk ? ExitCodes.OK : ExitCodes.SOFTWARE;
    }
  }
}
