package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.testing.DaemonProcess;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that fails half-way (the listen port is taken, after the state is open and the delivery
 * workers run) stops what it started: no worker thread is left, and the same state directory can be
 * started again at once. Before, the workers kept running in the embedding JVM.
 */
class FailedStartTest {
  @TempDir Path dir;

  private static long specwatchThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("specwatch-outbox-"))
        .count();
  }

  @Test
  void aFailedStartLeavesNothingRunning() throws Exception {
    DaemonProcess.policy(dir.resolve("alerts"), "p", "m", "");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Path config =
          DaemonProcess.Config.of(URI.create("http://127.0.0.1:9"))
              .log()
              .write(dir.resolve("specwatch.yaml"));
      Files.writeString(
          config,
          Files.readString(config).replace("127.0.0.1:0", "127.0.0.1:" + taken.getLocalPort()));
      long before = specwatchThreads();
      Daemon daemon = new Daemon(config, new ConfigLoader(k -> null), Clock.systemUTC());
      assertThatThrownBy(daemon::start).isInstanceOf(java.net.BindException.class);
      assertThat(specwatchThreads())
          .as("before: the log notifier's worker kept running")
          .isEqualTo(before);
    }
    // The port is free now: the same config and state directory start.
    try (Daemon again =
        DaemonAccess.start(
            dir.resolve("specwatch.yaml"), new ConfigLoader(k -> null), Clock.systemUTC())) {
      assertThat(again.port()).isPositive();
    }
  }
}
