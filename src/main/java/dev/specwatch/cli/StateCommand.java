package dev.specwatch.cli;

import dev.specwatch.backend.StateBackend;
import dev.specwatch.backend.StateImport;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code specwatch state}: moving a single daemon's state into the shared database. */
@Command(
    name = "state",
    mixinStandardHelpOptions = true,
    description = {
      "Moves a state directory into the PostgreSQL database of state.backend: postgres.",
      "Stop the file-backed daemon first; start the replicas after the import."
    },
    subcommands = {StateCommand.Import.class})
final class StateCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description =
          "Copies alerts, history, silences, pending notifications, Slack messages and the digest"
              + " ledger from a state directory into the config's database.")
  static final class Import implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConfigOption config;

    @Option(
        names = "--from",
        required = true,
        paramLabel = "DIR",
        description = "The state directory of the file backend (its state.dir).")
    Path from;

    @Option(names = "--force", description = "Replace alert state the database holds already.")
    boolean force;

    @Override
    public Integer call() throws IOException {
      SpecwatchConfig c = config.load();
      if (!Files.isRegularFile(from.resolve("alerts.json"))) {
        throw new UsageException(from + " has no alerts.json: is it a state directory?");
      }
      StateBackend database;
      try {
        database = StateBackend.database(c, Clock.systemUTC());
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
      try (database;
          StateBackend files = StateBackend.files(from, Clock.systemUTC())) {
        StateImport.Summary s;
        try {
          s = StateImport.run(files, database, force);
        } catch (IllegalStateException e) {
          throw new UsageException(e.getMessage());
        }
        spec.commandLine()
            .getOut()
            .printf(
                "imported into %s: %d alert(s) (%d firing) in %d shard(s), %d transition(s),"
                    + " %d silence(s), %d pending notification(s), %d Slack message(s), %d"
                    + " digest week(s)%n",
                database.health().location(),
                s.alerts(),
                s.firing(),
                s.shards(),
                s.transitions(),
                s.silences(),
                s.notifications(),
                s.slackMessages(),
                s.digestWeeks());
      }
      return ExitCodes.OK;
    }
  }
}
