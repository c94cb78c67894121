package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.DaemonProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The first hour's stall: a config whose state.dir (/var/lib/...) the user cannot create passed
 * {@code validate}, and {@code run} then died saying only the path. As nobody: {@code validate}
 * warns and says how to fix it, {@code run} exits 1 saying "permission denied" and the fix.
 */
class StateDirAsNobodyIT {
  @Test
  void validateWarnsAndRunSaysWhyForADirectoryTheUserCannotCreate() throws Exception {
    Path dir = Files.createTempDirectory("specwatch-nobody");
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path jar = Files.copy(Path.of(DaemonProcess.jarPath()), dir.resolve("specwatch.jar"));
      Files.createDirectories(dir.resolve("alerts"));
      DaemonProcess.policy(dir.resolve("alerts"), "p", "m", "");
      Path locked = Files.createDirectory(dir.resolve("locked")); // root's, 0755: nobody cannot
      Path config =
          DaemonProcess.Config.of(java.net.URI.create("http://127.0.0.1:9"))
              .stateDir(locked.resolve("state"))
              .log()
              .write(dir.resolve("specwatch.yaml"));
      for (Path p : List.of(jar, config, dir.resolve("alerts"), dir.resolve("alerts/p.yaml"))) {
        Files.setPosixFilePermissions(
            p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
      }

      DaemonProcess.Outcome validate = asNobody(jar, "validate", "--config", config.toString());
      assertThat(validate.exit()).as(validate.output()).isZero();
      assertThat(validate.output())
          .contains(
              "warning: state.dir "
                  + locked.resolve("state")
                  + " does not exist and cannot be created by nobody ("
                  + locked
                  + " is not writable): `specwatch run` as nobody would stop there");

      DaemonProcess.Outcome run = asNobody(jar, "run", "--config", config.toString());
      assertThat(run.exit()).as(run.output()).isEqualTo(1);
      assertThat(run.output())
          .contains("specwatch run: cannot start: " + locked.resolve("state"))
          .contains("permission denied for user nobody");
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static DaemonProcess.Outcome asNobody(Path jar, String... args) throws Exception {
    return DaemonProcess.runToEnd(
        List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"),
        jar.toString(),
        args);
  }
}
