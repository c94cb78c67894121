package dev.specwatch.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process for tests in other packages. */
public final class CliRunner {
  private CliRunner() {}

  public record Result(int exit, String out, String err) {}

  public static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Result(exit, out.toString(), err.toString());
  }
}
