package dev.specwatch.cli;

import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.model.Durations;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "silence",
    mixinStandardHelpOptions = true,
    description = {
      "Ad-hoc silences: matching alerts keep being evaluated but are not notified.",
      "Stored in <state.dir>/silences.json; a running daemon picks changes up at its next"
          + " evaluation."
    },
    subcommands = {
      SilenceCommand.Add.class,
      SilenceCommand.ListSilences.class,
      SilenceCommand.Expire.class
    })
final class SilenceCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = "Silences a recipe (or a glob such as 'qwen*'), optionally one rule only.")
  static final class Add implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConfigOption config;

    @Option(
        names = "--recipe",
        required = true,
        paramLabel = "NAME",
        description = "Recipe name or glob with *.")
    String recipe;

    @Option(
        names = "--rule",
        paramLabel = "RULE",
        description =
            "Only this rule (acceptance_rate, mean_accepted_length,"
                + " position_acceptance, regression, throughput); default: every rule.")
    String rule;

    @Option(
        names = "--duration",
        paramLabel = "DURATION",
        defaultValue = "2h",
        description = "How long, from now (default: ${DEFAULT-VALUE}).")
    String duration;

    @Option(
        names = "--comment",
        required = true,
        paramLabel = "TEXT",
        description = "Why: shown in `silence list`.")
    String comment;

    @Option(names = "--author", paramLabel = "NAME", description = "Who (default: $USER).")
    String author;

    @Override
    public Integer call() throws IOException {
      PrintWriter err = spec.commandLine().getErr();
      Optional<Duration> d = Durations.parse(duration);
      if (d.isEmpty() || d.get().isZero()) {
        err.println(
            "specwatch silence add: --duration expects a duration like 2h, got '" + duration + "'");
        return ExitCodes.INVALID_INPUT;
      }
      Optional<SpecwatchConfig> c = config.load(err);
      if (c.isEmpty()) {
        return ExitCodes.INVALID_INPUT;
      }
      Instant now = Clock.systemUTC().instant();
      String who = author != null ? author : System.getenv().getOrDefault("USER", "unknown");
      Silence silence =
          new Silence(
              UUID.randomUUID().toString().substring(0, 8),
              recipe,
              Optional.ofNullable(rule),
              now,
              now.plus(d.get()),
              comment,
              who);
      new SilenceStore(c.get().stateDir()).add(silence);
      spec.commandLine()
          .getOut()
          .printf(
              "silence %s: %s%s until %s%n",
              silence.id(), recipe, rule == null ? "" : " (" + rule + ")", silence.endsAt());
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Lists active silences (--all: also expired ones).")
  static final class ListSilences implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConfigOption config;

    @Option(names = "--all", description = "Include expired silences.")
    boolean all;

    @Override
    public Integer call() throws IOException {
      Optional<SpecwatchConfig> c = config.load(spec.commandLine().getErr());
      if (c.isEmpty()) {
        return ExitCodes.INVALID_INPUT;
      }
      Instant now = Clock.systemUTC().instant();
      List<Silence> silences =
          new SilenceStore(c.get().stateDir())
              .load().stream().filter(s -> all || s.endsAt().isAfter(now)).toList();
      PrintWriter out = spec.commandLine().getOut();
      if (silences.isEmpty()) {
        out.println("no " + (all ? "" : "active ") + "silences");
      }
      for (Silence s : silences) {
        out.printf(
            "%s  %-24s %-20s %s .. %s  %s  (%s)%s%n",
            s.id(),
            s.recipe(),
            s.rule().orElse("*"),
            s.startsAt(),
            s.endsAt(),
            s.comment(),
            s.createdBy(),
            s.activeAt(now) ? "" : "  [expired]");
      }
      return ExitCodes.OK;
    }
  }

  @Command(name = "expire", mixinStandardHelpOptions = true, description = "Ends a silence now.")
  static final class Expire implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConfigOption config;

    @Parameters(paramLabel = "ID", description = "The id `silence list` shows.")
    String id;

    @Override
    public Integer call() throws IOException {
      Optional<SpecwatchConfig> c = config.load(spec.commandLine().getErr());
      if (c.isEmpty()) {
        return ExitCodes.INVALID_INPUT;
      }
      if (!new SilenceStore(c.get().stateDir()).expire(id, Clock.systemUTC().instant())) {
        spec.commandLine().getErr().println("specwatch silence expire: no active silence " + id);
        return ExitCodes.INVALID_INPUT;
      }
      spec.commandLine().getOut().println("silence " + id + " expired");
      return ExitCodes.OK;
    }
  }
}
