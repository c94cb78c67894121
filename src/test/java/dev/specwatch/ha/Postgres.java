package dev.specwatch.ha;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Stops and starts the machine's PostgreSQL cluster (tests run as root, as CI does). */
final class Postgres {
  private Postgres() {}

  static void stop() throws IOException, InterruptedException {
    run("stop", "-m", "fast");
  }

  static void start() throws IOException, InterruptedException {
    run("start");
  }

  private static void run(String... action) throws IOException, InterruptedException {
    String version;
    try (Stream<Path> versions = Files.list(Path.of("/etc/postgresql"))) {
      version =
          versions.map(p -> p.getFileName().toString()).sorted().reduce((a, b) -> b).orElseThrow();
    }
    java.util.List<String> cmd =
        new java.util.ArrayList<>(
            java.util.List.of("pg_ctlcluster", "--skip-systemctl-redirect", version, "main"));
    cmd.addAll(java.util.List.of(action));
    Process p = new ProcessBuilder(cmd).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed");
    }
  }
}
