package dev.specwatch.cli;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.schedule.Daemon;
import dev.specwatch.yaml.InvalidInputException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the daemon: evaluation, alerts, notifications and the status server.",
      "Evaluates every recipe each evaluation.interval, fires and resolves alerts, delivers notifications, serves /healthz /readyz /metrics /api/v1/... . SIGHUP or POST /-/reload reloads the config; SIGTERM stops cleanly (exit 0)."
    })
final class RunCommand implements Callable<Integer> {
  private static final Logger logger = LoggerFactory.getLogger(RunCommand.class);

  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Option(
      names = "--shutdown-timeout",
      paramLabel = "DURATION",
      defaultValue = SpecwatchConfig.DEFAULT_SHUTDOWN_TIMEOUT,
      description = "How long SIGTERM waits for a running evaluation (default: ${DEFAULT-VALUE}).")
  Duration shutdownTimeout;

  /**
   * What went wrong, in words: a file system error names the file and its reason (Java's own
   * message for a permission problem is the bare path).
   */
  static String why(IOException e) {
    if (e instanceof AccessDeniedException a) {
      return a.getFile()
          + ": permission denied for user "
          + System.getProperty("user.name")
          + " (make it writable by that user, run as the user that owns it, or point state.dir"
          + " elsewhere)";
    }
    if (e instanceof FileSystemException f && f.getFile() != null) {
      return f.getFile()
          + ": "
          + (f.getReason() != null ? f.getReason() : e.getClass().getSimpleName())
          + (f.getOtherFile() != null ? " (" + f.getOtherFile() + ")" : "");
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  @Override
  public Integer call() throws IOException, SchedulerException, InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    Daemon daemon =
        new Daemon(config.file, ConfigLoader.fromSystemEnvironment(), Clock.systemUTC());
    try {
      daemon.start();
    } catch (InvalidInputException e) {
      daemon.stop(Duration.ZERO);
      throw e;
    } catch (IOException e) {
      err.println("specwatch run: cannot start: " + why(e));
      daemon.stop(Duration.ZERO);
      return ExitCodes.SOFTWARE;
    }
    CountDownLatch stop = new CountDownLatch(1);
    // One thread, owned here, for every SIGHUP: reloads run one after the other, off the signal
    // thread, and no new one starts once the daemon stops.
    ExecutorService reloads =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "specwatch-reload");
              t.setDaemon(true);
              return t;
            });
    Signals.handle(
        "HUP",
        () ->
            reloads.execute(
                () -> {
                  try {
                    daemon.reload();
                  } catch (RuntimeException e) {
                    logger.error("reload on SIGHUP failed", e);
                  }
                }));
    Signals.handle("TERM", stop::countDown);
    Signals.handle("INT", stop::countDown);
    stop.await();
    reloads.shutdown();
    daemon.stop(shutdownTimeout);
    return ExitCodes.OK;
  }
}
