package dev.specwatch.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database's health during a shutdown: an operation that began before the failure and succeeded
 * after it does not announce a recovery; one that began after does.
 */
class StateHealthTest {
  @Test
  void onlyASuccessThatBeganAfterTheFailureEndsTheOutage() {
    StateHealth health =
        new StateHealth(
            "db", "database db is unreachable", "database db is reachable again", () -> {});
    long before = System.nanoTime();
    health.failed(new IOException("terminating connection due to administrator command"));
    health.ok(before);
    assertThat(health.problem()).as("an operation already under way").isPresent();
    health.ok(System.nanoTime());
    assertThat(health.problem()).isEmpty();
    assertThat(health.failures()).isEqualTo(1);
  }

  @TempDir Path dir;

  /** The probe in a child JVM whose writes stop at {@code ulimit -f blocks} (512-byte blocks). */
  private String probeUnder(String blocks) throws Exception {
    Process p =
        new ProcessBuilder(
                "bash",
                "-c",
                "ulimit -f "
                    + blocks
                    + " && exec \"$0\" -XX:-UsePerfData -Xshare:off -cp \"$1\""
                    + " dev.specwatch.store.ProbeMain \"$2\"",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                System.getProperty("java.class.path"),
                dir.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out;
  }

  @Test
  void aDirectoryThatTakesAnEmptyFileButNoDataIsNotWritable() throws Exception {
    // A full disk (here: a file size limit of 0) still creates an empty file; the probe used to
    // create and delete one, say "writable again", and the next real write failed: the health
    // flapped every second. It now writes data and forces it.
    String full = probeUnder("0");
    assertThat(full).contains("writable=false").contains("problem=state dir ");
    assertThat(probeUnder("unlimited")).contains("writable=true");
  }
}
