package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quartz.SchedulerException;

/** A reload reports what it really applied: a schedule that fails is said, not hidden. */
class ReloadsTest {
  @TempDir Path dir;

  @Test
  void aFailedScheduleChangeIsReportedAndTheOtherStillApplied() {
    List<String> applied = new ArrayList<>();
    List<String> notApplied =
        Reloads.reschedule(
            () -> {
              throw new SchedulerException("scheduler shut down");
            },
            () -> applied.add("digest"));
    assertThat(applied).containsExactly("digest");
    assertThat(notApplied)
        .containsExactly(
            "evaluation.interval not applied (evaluating as before): scheduler shut down");
    assertThat(Reloads.reschedule(() -> applied.add("interval"), () -> applied.add("digest")))
        .isEmpty();
  }

  @Test
  void settingsThatNeedARestartAreNamed() throws Exception {
    Files.createDirectories(dir.resolve("alerts"));
    Path a = dir.resolve("a.yaml");
    Path b = dir.resolve("b.yaml");
    Files.writeString(
        a,
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\nstate: {dir: s1}\n"
            + "server: {listen: \"127.0.0.1:9464\"}\n");
    Files.writeString(
        b,
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\nstate: {dir: s2}\n"
            + "server: {listen: \"127.0.0.1:9465\"}\n");
    ConfigLoader loader = new ConfigLoader(k -> null);
    SpecwatchConfig running = loader.load(a);
    SpecwatchConfig next = loader.load(b);
    assertThat(Reloads.needRestart(running, next, "/var/lib/x"))
        .containsExactly(
            "the state section changed: takes effect after a restart (still using /var/lib/x)",
            "server.listen changed to 127.0.0.1:9465: takes effect after a restart");
    assertThat(Reloads.needRestart(running, running, "/var/lib/x")).isEmpty();
    assertThat(Reloads.report(next, List.of("digest schedule not applied"))).hasSize(1);
    assertThat(Reloads.report(next, List.of())).isEmpty();
  }
}
