package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.testing.FakePrometheus;
import dev.specwatch.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AlertServiceTest {
  @TempDir Path dir;

  @Test
  void theStateIsReadableWhileACycleWaitsOnASlowDatasource() throws Exception {
    CountDownLatch inQuery = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FakePrometheus slow =
        FakePrometheus.of(
            promql -> {
              inQuery.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return List.of();
            });
    MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    AlertService service =
        AlertService.builder(
                new Evaluator(slow, clock),
                new AlertEngine(SpecwatchConfig.Alerting.defaults()),
                clock)
            .files(dir)
            .sink(t -> {})
            .build();
    Policy policy =
        Policy.builder("q", Map.of("model_name", "q"), 3)
            .acceptanceRate(Threshold.below(0.4))
            .build();
    CompletableFuture<AlertService.Cycle> cycle =
        CompletableFuture.supplyAsync(
            () -> service.runOnce(List.of(policy), Duration.ofMinutes(5)));
    assertThat(inQuery.await(10, TimeUnit.SECONDS)).as("the cycle is querying").isTrue();
    // The status API reads the state while the cycle is stuck in a query: it must not wait.
    AlertState read = CompletableFuture.supplyAsync(service::state).get(10, TimeUnit.SECONDS);
    assertThat(read.alerts()).isEmpty();
    assertThat(cycle).isNotDone();
    release.countDown();
    assertThat(cycle.get(10, TimeUnit.SECONDS).evaluation().recipes()).hasSize(1);
  }
}
