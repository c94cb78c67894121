package dev.specwatch.schedule;

import dev.specwatch.config.ConfigLoader;
import java.nio.file.Path;
import java.time.Clock;

/** Starts a {@link Daemon} in the test's JVM, for tests in other packages. */
public final class DaemonAccess {
  private DaemonAccess() {}

  public static Daemon start(Path config, ConfigLoader loader, Clock clock) throws Exception {
    Daemon d = new Daemon(config, loader, clock);
    d.start();
    return d;
  }
}
