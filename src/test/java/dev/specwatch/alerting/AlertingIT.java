package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.testing.Fleet;
import dev.specwatch.testing.MutableClock;
import dev.specwatch.testing.Timeline;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert engine end to end: a real Prometheus scraping the simulator (alerting-it.yaml), the
 * production evaluator, engine and file state store, evaluated every 3 s of the scenario's 150 s
 * (at those points of the timeline, once Prometheus has scraped it all: see Timeline). Offsets are
 * offsets of the data and allow the window, `for`, one evaluation interval and one scrape.
 */
class AlertingIT {
  private static final Duration WINDOW = Duration.ofSeconds(15);
  private static final Duration INTERVAL = Duration.ofSeconds(3);
  private static final Duration LENGTH = Duration.ofSeconds(150);

  @TempDir Path stateDir;

  private static Policy policy(String recipe, String model) {
    return Policy.builder(recipe, Map.of("job", "vllm", "model_name", model), 3)
        .minDrafts(10)
        .forDuration(Duration.ofSeconds(6))
        .keepFiringFor(Duration.ofSeconds(6))
        .acceptanceRate(new Threshold(0.45, OptionalDouble.of(0.5), Optional.empty()))
        .build();
  }

  private static Policy regression(String recipe, String model, double maxDrop) {
    return Policy.builder(recipe, Map.of("job", "vllm", "model_name", model), 3)
        .minDrafts(1)
        .forDuration(Duration.ZERO)
        .keepFiringFor(Duration.ofSeconds(6))
        .regression(
            new Policy.Regression(maxDrop, Duration.ofSeconds(40), 3.0, 10, Optional.empty()))
        .build();
  }

  @Test
  void firesOnceResolvesOnceAndStaysQuietOnIdleRestartsAndNoise() throws Exception {
    List<Policy> policies =
        List.of(
            policy("flap", "it/flap"),
            policy("restart", "it/restart"),
            regression("drop20", "it/drop20", 0.15),
            // 3 % would count as a drop; only the z-test keeps this thin-traffic dip quiet.
            regression("noisy", "it/noisy-low", 0.03));
    List<Transition> seen = Collections.synchronizedList(new ArrayList<>());
    Instant start;
    try (Fleet fleet = Fleet.start("/dev/specwatch/testing/alerting-it.yaml")) {
      // Offsets are measured on the simulator's timeline, which starts before Prometheus does.
      start = fleet.startedAt();
      MutableClock clock = new MutableClock(start);
      AlertService service =
          AlertService.builder(
                  new Evaluator(
                      new PrometheusClient(PrometheusSettings.of(fleet.prometheus().baseUri())),
                      clock),
                  new AlertEngine(
                      new SpecwatchConfig.Alerting(Duration.ofHours(1), Duration.ofMinutes(2))),
                  clock)
              .files(stateDir)
              .sink(seen::add)
              .build();
      Timeline.awaitScraped(fleet, LENGTH);
      Timeline.everyStep(clock, start, INTERVAL, LENGTH, () -> service.runOnce(policies, WINDOW));
      assertThat(service.state().queued()).as("everything delivered").isEmpty();
    }

    List<Transition> flap = seen.stream().filter(t -> t.recipe().equals("flap")).toList();
    assertThat(flap)
        .extracting(Transition::kind)
        .as("one firing and one resolved across regression, idle gap and second regression")
        .containsExactly(Transition.Kind.FIRING, Transition.Kind.RESOLVED);
    // Regression starts at 30s; the 15s window crosses 0.45 within it, then `for` is 6s.
    assertThat(offset(start, flap.get(0))).isBetween(30L, 30L + 15 + 6 + 3 + 3);
    // Recovery starts at 115s; the window clears 0.5 within 15s, then keep_firing_for is 6s.
    assertThat(offset(start, flap.get(1))).isBetween(115L, 115L + 15 + 6 + 3 + 3);

    assertThat(seen).filteredOn(t -> t.recipe().equals("restart")).as("counter reset").isEmpty();
    assertThat(seen).filteredOn(t -> t.recipe().equals("noisy")).as("thin-traffic dip").isEmpty();
    List<Transition> drop = seen.stream().filter(t -> t.recipe().equals("drop20")).toList();
    // Exactly one firing. It may resolve before the end: the 40 s trailing baseline absorbs the
    // drop within a minute here (a 7 d baseline takes days), see docs/ALERTING.md.
    assertThat(drop).filteredOn(t -> t.kind() == Transition.Kind.FIRING).hasSize(1);
    assertThat(drop.get(0).kind()).isEqualTo(Transition.Kind.FIRING);
    assertThat(drop.get(0).rule()).isEqualTo("regression");
    assertThat(drop.get(0).reason()).startsWith("regression: acceptance 0.6");
    assertThat(offset(start, drop.get(0))).isBetween(60L, 60L + 15 + 3 + 3);
  }

  private static long offset(Instant start, Transition t) {
    return Duration.between(start, t.at()).toSeconds();
  }
}
