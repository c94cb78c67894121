package dev.specwatch.cli;

import dev.specwatch.model.Redaction;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.yaml.InvalidInputException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import picocli.CommandLine;

/** Entry point of {@code specwatch}; the only place that calls {@link System#exit}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    JvmSettings.apply();
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(run(args, out, err));
  }

  /** Parses and runs one command line; returns the exit code. */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = commandLine(out, err);
    return cli.execute(args);
  }

  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new SpecwatchCommand());
    cli.setOut(out);
    cli.setErr(err);
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.registerConverter(Duration.class, new CliTypes.DurationConverter());
    cli.registerConverter(Instant.class, new CliTypes.TimeConverter());
    cli.setExecutionExceptionHandler(Main::failed);
    return cli;
  }

  /** The one place where an exception becomes a message and an exit code (docs/CLI.md). */
  private static int failed(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    PrintWriter err = command.getErr();
    String name = command.getCommandSpec().qualifiedName(" ");
    int code;
    if (e instanceof InvalidInputException invalid) {
      invalid.problems().forEach(p -> err.println(Redaction.scrub(p.toString())));
      int n = invalid.problems().size();
      err.println(n + (n == 1 ? " error" : " errors"));
      code = ExitCodes.INVALID_INPUT;
    } else if (e instanceof UsageException) {
      err.println(name + ": " + Redaction.scrub(e.getMessage()));
      code = ExitCodes.INVALID_INPUT;
    } else if (e instanceof PrometheusException) {
      err.println(name + ": " + Redaction.scrub(e.getMessage()));
      code = ExitCodes.DATASOURCE;
    } else {
      err.println(name + ": " + Redaction.scrub(e.toString()));
      code = ExitCodes.SOFTWARE;
    }
    err.flush();
    return code;
  }
}
