package dev.specwatch.cli;

/** Exit codes shared by every command (docs/CLI.md). */
public final class ExitCodes {
  /** Success; for {@code check}: every recipe healthy or idle. */
  public static final int OK = 0;

  /** For {@code check}: a threshold is breached. Otherwise an unexpected failure. */
  public static final int SOFTWARE = 1;

  /** Invalid configuration, scenario or command line. */
  public static final int INVALID_INPUT = 2;

  /** The datasource (Prometheus) could not be queried. */
  public static final int DATASOURCE = 3;

  private ExitCodes() {}
}
