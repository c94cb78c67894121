package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.server.RecipeHistory;
import dev.specwatch.sim.ScenarioLoader;
import dev.specwatch.sim.Simulator;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.PrometheusServer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/SPEEDUP.md's claim for the recipe page: the speed-up by load and the advice are computed
 * from range queries and kept ten minutes ({@link RecipeHistoryCache#FRESH}), the charts half a
 * minute, so page views do not turn into Prometheus load. Counted by the real Prometheus itself
 * ({@link PrometheusServer#apiRequests}), over a backfilled history of an EAGLE deployment and its
 * baseline; the page's times are given, not read from the clock.
 */
class RecipeHistoryCacheIT {
  @TempDir Path dir;

  @Test
  void theSpeedUpAndTheAdviceAreQueriedOnceEveryTenMinutesAndTheChartsEveryHalfMinute()
      throws Exception {
    Instant end = Instant.ofEpochSecond(Instant.now().getEpochSecond() / 60 * 60);
    Instant start = end.minus(Duration.ofHours(3));
    String models = model("it/eagle", 3) + model("it/eagle-plain", 0);
    Simulator sim =
        new Simulator(
            ScenarioLoader.parse("cache.yaml", "name: cache\nmodels:\n" + models, dir),
            Clock.fixed(start, ZoneOffset.UTC));
    String history = sim.openMetricsHistory(start, end, Duration.ofSeconds(30), "vllm");
    dev.specwatch.testing.EaglePair.writeRecipes(dir);
    try (PrometheusServer prometheus = PrometheusServer.builder().history(history).start()) {
      Path file =
          DaemonProcess.Config.of(prometheus.baseUri())
              .evaluation("5s", "5m")
              .write(dir.resolve("specwatch.yaml"));
      SpecwatchConfig config = new ConfigLoader(k -> null).load(file);
      Daemon.Wiring wiring =
          new Daemon.Wiring(config, new PrometheusClient(config.prometheus()), List.of(), null);
      RecipeHistoryCache cache = new RecipeHistoryCache();
      Duration span = Duration.ofHours(6);

      long before = prometheus.apiRequests();
      RecipeHistory first = cache.get("eagle", span, wiring, end);
      long full = prometheus.apiRequests() - before;
      assertThat(first.speedup()).as("the speed-up was measured").isPresent();
      assertThat(first.advice()).isPresent();
      assertThat(first.charts()).isPresent();

      before = prometheus.apiRequests();
      cache.get("eagle", span, wiring, end.plusSeconds(29));
      assertThat(prometheus.apiRequests() - before)
          .as("nothing is queried within half a minute")
          .isZero();

      before = prometheus.apiRequests();
      RecipeHistory charts =
          cache.get("eagle", span, wiring, end.plus(Duration.ofMinutes(10)).minusSeconds(1));
      long chartsOnly = prometheus.apiRequests() - before;
      assertThat(chartsOnly).as("the charts are fetched again after half a minute").isPositive();
      assertThat(charts.speedup()).isEqualTo(first.speedup());

      before = prometheus.apiRequests();
      // The charts were fetched a second ago: what is queried now is the speed-up and the advice.
      RecipeHistory tenth = cache.get("eagle", span, wiring, end.plus(RecipeHistoryCache.FRESH));
      long again = prometheus.apiRequests() - before;
      assertThat(again)
          .as("after ten minutes the speed-up and the advice are queried again, nothing else")
          .isPositive()
          .isEqualTo(full - chartsOnly);
      assertThat(tenth.speedup()).isPresent();
    }
  }

  private static String model(String name, int k) {
    return "  - model_name: "
        + name
        + "\n    num_speculative_tokens: "
        + k
        + "\n    repeat: true\n    step_time: {base_ms: 12, per_token_ms: 0.6, draft_ms: 1.5}\n"
        + "    phases:\n"
        + "      - {duration: 30m, running_requests: 4"
        + (k > 0 ? ", position_acceptance: [0.8, 0.6, 0.4]}\n" : "}\n")
        + "      - {duration: 30m, running_requests: 16"
        + (k > 0 ? ", position_acceptance: [0.8, 0.6, 0.4]}\n" : "}\n");
  }
}
