package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.LiveDetection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code detection: sequential} on a real Prometheus scraping the simulator, acceptance halved for
 * a minute, evaluated every 5 s of the scenario's timeline once it is scraped. The sequential rule
 * fires once during the drop and resolves once after it, never in the healthy minute; the window
 * rule alongside fires too (later). How fast is measured by `make detect-bench`, not asserted here.
 */
class SequentialDetectionIT {
  @TempDir Path state;

  @Test
  void firesOnceOnTheDropResolvesOnceAndNeverInTheHealthyPhase() throws Exception {
    LiveDetection.Run run = LiveDetection.atFixedPoints(state, Duration.ofSeconds(170));
    List<Transition> sequential = run.of("sequential");
    assertThat(sequential)
        .extracting(Transition::kind)
        .as(sequential.toString())
        .containsExactly(Transition.Kind.FIRING, Transition.Kind.RESOLVED);
    assertThat(sequential.get(0).at()).isAfter(run.started().plus(LiveDetection.DROP));
    assertThat(sequential.get(0).at()).isBefore(run.started().plus(LiveDetection.RECOVERY));
    assertThat(sequential.get(1).at()).isAfter(run.started().plus(LiveDetection.RECOVERY));
    assertThat(sequential.get(0).reason())
        .startsWith("acceptance_rate 0.19")
        .contains("sequential");
    // The 1m window crosses later and has not cleared by the end of the run: firing only.
    assertThat(run.of("window"))
        .first()
        .extracting(Transition::kind)
        .isEqualTo(Transition.Kind.FIRING);
  }
}
