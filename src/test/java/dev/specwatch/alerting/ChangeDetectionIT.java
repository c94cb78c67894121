package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.testing.HistoryGenerator;
import dev.specwatch.testing.PrometheusServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change detection on nine days of noisy history (diurnal traffic and prompt mix, minute-scale
 * wander, overdispersion, bursts, a restart) backfilled into a real Prometheus with promtool, and
 * replayed through the daemon's evaluator, learner and engine: quiet for two healthy days, one page
 * for a 15 % drop at about 10 drafts/s, with the drop estimated in its message.
 */
class ChangeDetectionIT {
  static final Duration SCRAPE = Duration.ofSeconds(15);
  static final Duration STEP = Duration.ofMinutes(1);

  static final HistoryGenerator.Profile THIN = HistoryGenerator.thin("thin");

  @TempDir Path dir;

  private static Policy policy(String recipe, String model) {
    return Policy.builder(recipe, Map.of("model_name", model), HistoryGenerator.K)
        .minDrafts(10)
        .forDuration(Duration.ZERO)
        .keepFiringFor(Duration.ofMinutes(5))
        .change(new Policy.Change(0.1, Duration.ofDays(30), Duration.ofDays(7), Optional.empty()))
        .build();
  }

  @Test
  void quietOnHealthyNoiseAndOnePageForA15PercentDrop() throws Exception {
    // Aligned to a UTC midnight: the learner bins by hour of day, so the same history at any hour.
    Instant to = HistoryGenerator.lastMidnight(Instant.now());
    Instant from = to.minus(Duration.ofDays(9));
    Instant dropAt = to.minus(Duration.ofHours(20));
    List<Path> history =
        HistoryGenerator.writeDaily(
            dir,
            List.of(
                new HistoryGenerator.Model("it/healthy", THIN, null, from, to, 1),
                new HistoryGenerator.Model(
                    "it/drop15",
                    THIN,
                    new HistoryGenerator.Drop(0.15, dropAt, Duration.ZERO),
                    from,
                    to,
                    2)),
            SCRAPE);
    try (PrometheusServer prometheus =
        PrometheusServer.builder().scrapeInterval(SCRAPE).historyFiles(history).start()) {
      Replayer.Result r =
          new Replayer(
                  new PrometheusClient(
                      PrometheusSettings.of(prometheus.baseUri())
                          .withTimeout(Duration.ofMinutes(1))),
                  SpecwatchConfig.Alerting.defaults())
              .replay(
                  List.of(policy("healthy", "it/healthy"), policy("drop15", "it/drop15")),
                  Duration.ofMinutes(5),
                  from.plus(Duration.ofDays(7)),
                  to,
                  STEP);
      assertThat(r.finalState().models().get("healthy").model())
          .as(String.valueOf(r.finalState().models()))
          .isNotNull();
      assertThat(r.transitions())
          .filteredOn(t -> t.recipe().equals("healthy"))
          .as("two healthy days, no false alarm")
          .isEmpty();
      List<Transition> drop =
          r.transitions().stream().filter(t -> t.recipe().equals("drop15")).toList();
      assertThat(drop).as(drop.toString()).hasSize(1);
      Transition page = drop.get(0);
      assertThat(page.kind()).isEqualTo(Transition.Kind.FIRING);
      // 15 % is half again the 10 % floor: at 10 drafts/s the evidence that the level is below
      // the floor (not below the learned level) takes about an hour (docs/DETECTION.md).
      assertThat(page.at()).isAfter(dropAt).isBefore(dropAt.plus(Duration.ofHours(2)));
      assertThat(page.reason()).startsWith("change: acceptance ").contains("against its learned");
      // At the alarm the estimate overstates the drop (the steps that crossed the threshold were
      // the lowest); it is in the right range.
      double estimate = Double.parseDouble(page.reason().replaceAll(".*\\(([-+0-9.]+) %.*", "$1"));
      assertThat(estimate).isBetween(-35.0, -10.0);
    }
  }
}
