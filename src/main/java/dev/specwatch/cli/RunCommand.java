package dev.specwatch.cli;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.schedule.Daemon;
import dev.specwatch.yaml.InvalidInputException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.quartz.SchedulerException;
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
  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Option(
      names = "--shutdown-timeout",
      paramLabel = "DURATION",
      defaultValue = SpecwatchConfig.DEFAULT_SHUTDOWN_TIMEOUT,
      description = "How long SIGTERM waits for a running evaluation (default: ${DEFAULT-VALUE}).")
  Duration shutdownTimeout;

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
      err.println("specwatch run: " + e.getMessage());
      daemon.stop(Duration.ZERO);
      return ExitCodes.SOFTWARE;
    }
    CountDownLatch stop = new CountDownLatch(1);
    Signals.handle("HUP", () -> new Thread(daemon::reload, "specwatch-reload").start());
    Signals.handle("TERM", stop::countDown);
    Signals.handle("INT", stop::countDown);
    stop.await();
    daemon.stop(shutdownTimeout);
    return ExitCodes.OK;
  }
}
