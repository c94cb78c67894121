package dev.specwatch.cli;

import dev.specwatch.alerting.Silence;
import dev.specwatch.backend.StateBackend;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.signals.EvaluationJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
      "Adds, lists and expires silences: silenced alerts are evaluated but not notified.",
      "Stored in <state.dir>/silences.json (or the database of state.backend: postgres); a"
          + " running daemon picks changes up at its next evaluation."
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
            "Only this rule (acceptance_rate, mean_accepted_length, position_acceptance,"
                + " regression, throughput, slo_burn); default: every rule.")
    String rule;

    @Option(
        names = "--duration",
        paramLabel = "DURATION",
        defaultValue = "2h",
        description = "How long, from now (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
        names = "--comment",
        required = true,
        paramLabel = "TEXT",
        description = "Why: shown in `silence list`.")
    String comment;

    @Option(names = "--author", paramLabel = "NAME", description = "Who (default: $USER).")
    String author;

    @Option(
        names = "--force",
        description = "Add it even when --recipe matches no recipe yet (e.g. one not deployed).")
    boolean force;

    @Option(
        names = "--confirm-all",
        description = "Confirm a silence whose --recipe matches every recipe (nothing notified).")
    boolean confirmAll;

    @Override
    public Integer call() throws IOException {
      SpecwatchConfig c = config.load();
      if (rule != null) {
        Recipes.checkRule(rule);
      }
      if (!force) {
        Recipes.checkPattern(c, recipe);
      }
      if (!confirmAll
          && Silence.silencesEverything(
              recipe, c.policies().stream().map(dev.specwatch.model.Policy::recipe).toList())) {
        throw new UsageException(
            "--recipe '"
                + recipe
                + "' silences every recipe: nothing would be notified; add --confirm-all if that"
                + " is what you mean");
      }
      Instant now = Clock.systemUTC().instant();
      String who = author != null ? author : System.getenv().getOrDefault("USER", "unknown");
      Silence silence =
          new Silence(
              UUID.randomUUID().toString().substring(0, 8),
              recipe,
              Optional.ofNullable(rule),
              now,
              now.plus(duration),
              comment,
              who);
      try (StateBackend store = StateBackend.forCommand(c, Clock.systemUTC())) {
        store.silences().add(silence);
      }
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

    @Mixin OutputOption output;

    @Override
    public Integer call() throws IOException {
      SpecwatchConfig c = config.load();
      Instant now = Clock.systemUTC().instant();
      List<Silence> silences;
      try (StateBackend store = StateBackend.forCommand(c, Clock.systemUTC())) {
        silences =
            store.silences().load().stream().filter(s -> all || s.endsAt().isAfter(now)).toList();
      }
      PrintWriter out = spec.commandLine().getOut();
      if (output.json()) {
        List<Object> list = new ArrayList<>();
        for (Silence s : silences) {
          list.add(s.json(now));
        }
        out.println(EvaluationJson.MAPPER.writeValueAsString(Map.of("silences", list)));
        return ExitCodes.OK;
      }
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
      SpecwatchConfig c = config.load();
      try (StateBackend store = StateBackend.forCommand(c, Clock.systemUTC())) {
        if (!store.silences().expire(id, Clock.systemUTC().instant())) {
          throw new UsageException("no active silence " + id + " (see `specwatch silence list`)");
        }
      }
      spec.commandLine().getOut().println("silence " + id + " expired");
      return ExitCodes.OK;
    }
  }
}
