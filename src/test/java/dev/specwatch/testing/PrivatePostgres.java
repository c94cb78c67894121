package dev.specwatch.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own (the machine's PostgreSQL binaries, a fresh data directory,
 * a free loopback port, trust authentication), for tests that stop and start the server: the
 * machine's shared server at 127.0.0.1:5432 keeps serving the other tests meanwhile. Runs as the
 * {@code postgres} user (PostgreSQL refuses root); tests run as root.
 */
public final class PrivatePostgres implements AutoCloseable {
  private final Path dir;
  private final Path bin;
  private final int port;

  private PrivatePostgres(Path dir, Path bin, int port) {
    this.dir = dir;
    this.bin = bin;
    this.port = port;
  }

  public static PrivatePostgres start() throws IOException, InterruptedException {
    Path bin;
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      bin =
          versions
              .max(Comparator.comparing(p -> Integer.parseInt(p.getFileName().toString())))
              .orElseThrow(() -> new IOException("PostgreSQL is not installed: run `make deps`"))
              .resolve("bin");
    }
    Path dir = Files.createTempDirectory("specwatch-pg");
    run("chown", "postgres:postgres", dir.toString());
    asPostgres(
        bin.resolve("initdb").toString(),
        "-D",
        dir.resolve("data").toString(),
        "-U",
        "postgres",
        "-A",
        "trust",
        "--no-sync");
    // PostgreSQL cannot bind port 0 and say which it got: a port taken between the pick and the
    // bind fails the start, and another port is tried.
    return PrometheusServer.retryingPorts(
        port -> {
          PrivatePostgres pg = new PrivatePostgres(dir, bin, port);
          try {
            pg.up();
          } catch (IOException e) {
            String log =
                Files.exists(dir.resolve("server.log"))
                    ? Files.readString(dir.resolve("server.log"))
                    : "";
            if (log.contains("Address already in use") || log.contains("could not bind")) {
              Files.deleteIfExists(dir.resolve("server.log"));
              throw new PrometheusServer.PortTakenException(log);
            }
            throw e;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting PostgreSQL", e);
          }
          return pg;
        });
  }

  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** Starts the server (again) and waits until it accepts connections. */
  public void up() throws IOException, InterruptedException {
    asPostgres(
        bin.resolve("pg_ctl").toString(),
        "-D",
        dir.resolve("data").toString(),
        "-l",
        dir.resolve("server.log").toString(),
        "-o",
        "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off",
        "-w",
        "start");
  }

  /** Stops the server (fast: open connections are cut, as in a crash of the database host). */
  public void down() throws IOException, InterruptedException {
    asPostgres(
        bin.resolve("pg_ctl").toString(),
        "-D",
        dir.resolve("data").toString(),
        "-m",
        "fast",
        "-w",
        "stop");
  }

  private static void asPostgres(String... cmd) throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
    all.addAll(List.of(cmd));
    run(all.toArray(String[]::new));
  }

  private static void run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed:\n" + out);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      try {
        down();
      } catch (IOException e) {
        // already stopped
      }
      run("rm", "-rf", dir.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
