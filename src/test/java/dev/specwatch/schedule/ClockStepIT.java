package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.Fleet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stall seen once after a first boot under systemd (/readyz "no evaluation yet" for minutes,
 * every Quartz worker idle): Quartz keeps a trigger's next fire time on the wall clock, so a wall
 * clock that steps back leaves the schedule idle for the length of the step. The daemon runs under
 * libfaketime (Debian's faketime), whose offset the test moves by ten minutes back while it runs;
 * evaluations must go on within a few watchdog looks instead of ten minutes later.
 */
class ClockStepIT {
  private static final Pattern EVALUATIONS =
      Pattern.compile("(?m)^specwatch_evaluations_total\\{result=\"ok\"} ([0-9.]+)$");

  @TempDir Path dir;

  @Test
  void aWallClockSteppingBackTenMinutesDoesNotStopTheEvaluations() throws Exception {
    Path offset = Files.writeString(dir.resolve("faketime"), "+0\n", StandardCharsets.UTF_8);
    try (Fleet fleet = Fleet.start(Fleet.SCENARIO)) {
      DaemonProcess.policy(dir.resolve("alerts"), "steady", "it/steady-mtp", "");
      Path config =
          DaemonProcess.Config.of(fleet.prometheus().baseUri())
              .evaluation("2s", "15s")
              .log()
              .write(dir.resolve("specwatch.yaml"));
      List<String> faketime =
          List.of(
              "env",
              "LD_PRELOAD=" + libfaketime(),
              "FAKETIME_TIMESTAMP_FILE=" + offset,
              "FAKETIME_NO_CACHE=1",
              "FAKETIME_DONT_FAKE_MONOTONIC=1");
      try (DaemonProcess daemon =
          DaemonProcess.start(
              config, dir.resolve("specwatch.log"), dir, faketime, DaemonProcess.jarPath())) {
        // Generous bounds, not timings: under libfaketime with FAKETIME_NO_CACHE every clock read
        // reads the offset file, and beside the suite's other forks on two CPUs the daemon's
        // start and first evaluations took over a minute once (CI, 2026-12-05).
        await().atMost(Duration.ofMinutes(3)).until(() -> evaluations(daemon) >= 3);

        Files.writeString(offset, "-10m\n", StandardCharsets.UTF_8);
        double before = evaluations(daemon);
        await()
            .atMost(Duration.ofMinutes(3))
            .untilAsserted(
                () -> assertThat(evaluations(daemon)).isGreaterThanOrEqualTo(before + 3));
        assertThat(daemon.logText())
            // The step as the watchdog measured it, to the second (the offset file is read a few
            // milliseconds apart from the monotonic clock).
            .containsPattern("the wall clock stepped back by (9m59s|10m|10m1s);")
            .doesNotContain("specwatch is stuck");
        assertThat(daemon.get("/healthz").statusCode()).isEqualTo(200);
      }
    }
  }

  private static double evaluations(DaemonProcess daemon) throws Exception {
    Matcher m = EVALUATIONS.matcher(daemon.get("/metrics").body());
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  /** Debian's faketime package: /usr/lib/<triplet>/faketime/libfaketimeMT.so.1. */
  private static String libfaketime() throws IOException {
    try (DirectoryStream<Path> libs = Files.newDirectoryStream(Path.of("/usr/lib"))) {
      for (Path lib : libs) {
        Path so = lib.resolve("faketime/libfaketimeMT.so.1");
        if (Files.exists(so)) {
          return so.toString();
        }
      }
    }
    throw new IllegalStateException(
        "libfaketime is missing: make deps installs Debian's faketime package");
  }
}
