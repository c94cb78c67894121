package dev.specwatch.cli;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Durations;
import dev.specwatch.schedule.Daemon;
import dev.specwatch.yaml.InvalidInputException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
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
      "Runs the daemon: evaluates every recipe each evaluation.interval, fires and resolves",
      "alerts, delivers notifications, serves /healthz /readyz /metrics /api/v1/... .",
      "SIGHUP or POST /-/reload reloads the config; SIGTERM stops cleanly (exit 0)."
    })
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Option(
      names = "--shutdown-timeout",
      paramLabel = "DURATION",
      defaultValue = "30s",
      description = "How long SIGTERM waits for a running evaluation (default: ${DEFAULT-VALUE}).")
  String shutdownTimeout;

  @Override
  public Integer call() throws IOException, SchedulerException, InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    Optional<Duration> bound = Durations.parse(shutdownTimeout);
    if (bound.isEmpty()) {
      err.println("specwatch run: --shutdown-timeout expects a duration like 30s");
      return ExitCodes.INVALID_INPUT;
    }
    Daemon daemon =
        new Daemon(config.file, ConfigLoader.fromSystemEnvironment(), Clock.systemUTC());
    try {
      daemon.start();
    } catch (InvalidInputException e) {
      e.problems().forEach(err::println);
      err.println(e.problems().size() + (e.problems().size() == 1 ? " error" : " errors"));
      err.flush();
      daemon.stop(Duration.ZERO);
      return ExitCodes.INVALID_INPUT;
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
    daemon.stop(bound.get());
    return ExitCodes.OK;
  }
}
