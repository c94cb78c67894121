package dev.specwatch.cli;

import dev.specwatch.backend.StateBackend;
import dev.specwatch.digest.DigestPeriod;
import dev.specwatch.digest.DigestRenderer;
import dev.specwatch.digest.DigestService;
import dev.specwatch.digest.DigestSlack;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.Notifiers;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "digest",
    mixinStandardHelpOptions = true,
    description = {
      "Renders or sends the weekly efficiency digest.",
      "--dry-run --out DIR writes digest.html, digest.txt and the chart PNGs without sending (no digest: section needed); --send mails it now and records the period as sent. Default period: with --dry-run the current ISO week so far, with --send the last complete one, in digest.time_zone."
    })
final class DigestCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Mode mode;

  static final class Mode {
    @Option(names = "--dry-run", description = "Render only (needs --out).")
    boolean dryRun;

    @Option(names = "--send", description = "Render and send now.")
    boolean send;
  }

  @Option(names = "--out", paramLabel = "DIR", description = "Where --dry-run writes the files.")
  Path out;

  @Option(names = "--period", paramLabel = "YYYY-Www", description = "An ISO week, e.g. 2026-W47.")
  String period;

  private static SlackThreadStore slackThreads() {
    try {
      return new SlackThreadStore(Files.createTempDirectory("specwatch-digest"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Integer call() throws IOException, PrometheusException {
    SpecwatchConfig c = config.load();
    SpecwatchConfig.Digest digest = c.digest().orElse(SpecwatchConfig.Digest.defaults());
    DigestPeriod p;
    if (period != null) {
      p =
          DigestPeriod.parse(period, digest.timeZone())
              .orElseThrow(
                  () ->
                      new UsageException(
                          "--period expects an ISO week like 2026-W47, got '" + period + "'"));
    } else if (mode.dryRun) {
      // A preview shows the week so far: what the next mail will say, with the data there is
      // (the last complete week is all NO DATA on a deployment watched since this morning).
      java.time.Instant now = Clock.systemUTC().instant();
      p = DigestPeriod.of(now.atZone(digest.timeZone()).toLocalDate(), digest.timeZone());
    } else {
      p = DigestPeriod.lastComplete(Clock.systemUTC().instant(), digest.timeZone());
    }
    try (StateBackend state = StateBackend.forCommand(c, Clock.systemUTC())) {
      DigestService service =
          new DigestService(
              c,
              new PrometheusClient(c.prometheus()),
              Clock.systemUTC(),
              DigestService.defaultRetry(),
              new DigestService.Stores(state.history(), state.digestLedger()));
      return run(c, p, service);
    }
  }

  private Integer run(SpecwatchConfig c, DigestPeriod p, DigestService service)
      throws IOException, PrometheusException {
    if (mode.dryRun) {
      if (out == null) {
        throw new UsageException("--dry-run needs --out DIR");
      }
      DigestRenderer.Rendered r = service.render(p);
      Files.createDirectories(out);
      // In a browser the images are files next to the page, not parts of a mail.
      String html = r.html();
      for (String cid : r.images().keySet()) {
        html = html.replace("cid:" + cid, cid.replace("@specwatch", "") + ".png");
      }
      Files.writeString(out.resolve("digest.html"), html, StandardCharsets.UTF_8);
      Files.writeString(out.resolve("digest.txt"), r.text(), StandardCharsets.UTF_8);
      for (Map.Entry<String, byte[]> image : r.images().entrySet()) {
        Files.write(
            out.resolve(image.getKey().replace("@specwatch", "") + ".png"), image.getValue());
      }
      spec.commandLine()
          .getOut()
          .printf(
              "%s%nwrote %s (digest.html, digest.txt, %d chart(s))%n",
              r.subject(), out, r.images().size());
      return ExitCodes.OK;
    }
    if (c.digest().isEmpty()) {
      throw new UsageException(
          "the config has no digest: section, so there is nobody to send to;"
              + " add one (docs/DIGEST.md) or use --dry-run --out DIR");
    }
    Optional<String> channel = c.digest().get().slackChannel();
    if (channel.isPresent()) {
      DigestSlack.poster(
              Notifiers.create(c, slackThreads(), Clock.systemUTC()).values(),
              channel.get(),
              r -> spec.commandLine().getOut().println("slack summary: " + r))
          .ifPresent(service::withSlackSummary);
    }
    DigestService.Outcome outcome = service.send(p);
    spec.commandLine()
        .getOut()
        .println("digest " + p.label() + ": " + outcome.name().toLowerCase(Locale.ROOT));
    return outcome == DigestService.Outcome.SENT ? ExitCodes.OK : ExitCodes.SOFTWARE;
  }
}
