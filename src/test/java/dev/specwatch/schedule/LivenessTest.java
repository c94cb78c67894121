package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Liveness on a monotonic clock the test moves: what counts as a stall, and what does not. */
class LivenessTest {
  final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  @Test
  void aSchedulerThatNeverFiresIsStuckAfterThreeIntervalsAndAMinute() {
    Liveness l = new Liveness(nanos::get, Duration.ofSeconds(30), true);
    advance(Duration.ofSeconds(150));
    assertThat(l.stalled()).isEmpty();
    advance(Duration.ofSeconds(1));
    assertThat(l.stalled())
        .hasValue(
            "no evaluation has started 2m31s after specwatch started (evaluation.interval 30s)");
  }

  @Test
  void beforeTheFirstEvaluationItSaysWhetherOneIsUnderWayAndForHowLong() {
    Liveness l = new Liveness(nanos::get, Duration.ofSeconds(30), true);
    advance(Duration.ofMillis(400));
    assertThat(l.beforeFirstEvaluation())
        .isEqualTo("none has started in the 0s since specwatch started");
    advance(Duration.ofSeconds(100));
    assertThat(l.beforeFirstEvaluation())
        .isEqualTo("none has started in the 1m40s since specwatch started");
    l.started(0);
    advance(Duration.ofSeconds(95));
    l.started(1);
    advance(Duration.ofSeconds(5));
    assertThat(l.beforeFirstEvaluation()).isEqualTo("the first has been running for 1m40s");
  }

  @Test
  void evaluationsThatStartAndFinishKeepItAlive() {
    Liveness l = new Liveness(nanos::get, Duration.ofSeconds(30), true);
    for (int i = 0; i < 20; i++) {
      l.started(0);
      advance(Duration.ofSeconds(2));
      l.finished(0);
      advance(Duration.ofSeconds(28));
      assertThat(l.stalled()).isEmpty();
    }
    advance(Duration.ofSeconds(123));
    assertThat(l.stalled()).hasValue("no evaluation for the last 2m31s (evaluation.interval 30s)");
    l.started(0);
    assertThat(l.stalled()).as("running again").isEmpty();
  }

  @Test
  void aLongEvaluationAgainstAStalledDatasourceIsNotAStallButAHungOneIs() {
    Liveness l = new Liveness(nanos::get, Duration.ofSeconds(30), true);
    l.started(0);
    advance(Duration.ofMinutes(7)); // every query timed out and was retried
    assertThat(l.stalled()).isEmpty();
    advance(Duration.ofMinutes(8).plusSeconds(1));
    assertThat(l.stalled()).hasValue("an evaluation has been running for 15m1s (more than 15m)");
  }

  @Test
  void aReloadedIntervalMovesTheBound() {
    Liveness l = new Liveness(nanos::get, Duration.ofSeconds(30), true);
    l.interval(Duration.ofMinutes(5));
    assertThat(l.stallAfter()).isEqualTo(Duration.ofMinutes(16));
    advance(Duration.ofMinutes(15));
    assertThat(l.stalled()).isEmpty();
  }

  @Test
  void aClusterReplicaThatRunsNoShardIsNotStuck() {
    Liveness l = new Liveness(nanos::get, Duration.ofSeconds(30), false);
    advance(Duration.ofHours(1));
    assertThat(l.stalled()).isEmpty();
    l.started(3);
    advance(Duration.ofMinutes(16));
    assertThat(l.stalled()).isPresent();
  }
}
