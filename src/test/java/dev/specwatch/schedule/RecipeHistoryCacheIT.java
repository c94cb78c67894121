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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/SPEEDUP.md's claim for the recipe page: the speed-up by load and the advice are computed
 * from range queries and kept ten minutes ({@link RecipeHistoryCache#FRESH}), the charts half a
 * minute, so page views do not turn into Prometheus load. Counted by the real Prometheus itself
 * (its {@code prometheus_http_requests_total} for the query API), over a backfilled history of an
 * EAGLE deployment and its baseline; the page's times are given, not read from the clock.
 */
class RecipeHistoryCacheIT {
  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

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
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        alerts.resolve("eagle.yaml"),
        "recipe: eagle\nmatch: {job: vllm, model_name: it/eagle}\nnum_speculative_tokens: 3\n"
            + "min_drafts: 10\nspeedup_baseline: eagle-plain\n");
    Files.writeString(
        alerts.resolve("plain.yaml"),
        "recipe: eagle-plain\nmatch: {job: vllm, model_name: it/eagle-plain}\n"
            + "num_speculative_tokens: 0\n");
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

      long before = queries(prometheus);
      RecipeHistory first = cache.get("eagle", span, wiring, end);
      long full = queries(prometheus) - before;
      assertThat(first.speedup()).as("the speed-up was measured").isPresent();
      assertThat(first.advice()).isPresent();
      assertThat(first.charts()).isPresent();

      before = queries(prometheus);
      cache.get("eagle", span, wiring, end.plusSeconds(29));
      assertThat(queries(prometheus) - before)
          .as("nothing is queried within half a minute")
          .isZero();

      before = queries(prometheus);
      RecipeHistory charts =
          cache.get("eagle", span, wiring, end.plus(Duration.ofMinutes(10)).minusSeconds(1));
      long chartsOnly = queries(prometheus) - before;
      assertThat(chartsOnly).as("the charts are fetched again after half a minute").isPositive();
      assertThat(charts.speedup()).isEqualTo(first.speedup());

      before = queries(prometheus);
      // The charts were fetched a second ago: what is queried now is the speed-up and the advice.
      RecipeHistory tenth = cache.get("eagle", span, wiring, end.plus(RecipeHistoryCache.FRESH));
      long again = queries(prometheus) - before;
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

  /** Requests Prometheus has answered on its query API so far, from its own counters. */
  private long queries(PrometheusServer prometheus) throws Exception {
    String metrics =
        http.send(
                HttpRequest.newBuilder(URI.create(prometheus.baseUri() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Matcher m =
        Pattern.compile(
                "(?m)^prometheus_http_requests_total\\{[^}]*handler=\"/api/v1/[^\"]*\"[^}]*} (\\S+)$")
            .matcher(metrics);
    long n = 0;
    while (m.find()) {
      n += (long) Double.parseDouble(m.group(1));
    }
    return n;
  }
}
