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

  /**
   * For {@code check}: nothing breached, but a recipe reads no data (a typo in {@code model_name},
   * a deployment that is down), so it cannot alert; {@code --allow-no-data} makes it 0.
   */
  public static final int NO_DATA = 4;

  private ExitCodes() {}
}
