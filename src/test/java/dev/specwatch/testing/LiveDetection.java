package dev.specwatch.testing;

import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertService;
import dev.specwatch.alerting.Learner;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluator;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The live scenario (sequential-it.yaml): a real Prometheus scraping the simulator every second,
 * the daemon's alert service every 5 s, {@code acceptance_rate below 0.3} with {@code for: 0s} and
 * {@code keep_firing_for: 10s}, decided by the rate window (1m) and by the sequential test.
 */
public final class LiveDetection {
  public static final Duration INTERVAL = Duration.ofSeconds(5);
  public static final Duration WINDOW = Duration.ofMinutes(1);
  public static final Duration DROP = Duration.ofSeconds(60);
  public static final Duration RECOVERY = Duration.ofMinutes(2);

  /** Every transition, and when the simulator's timeline started. */
  public record Run(List<Transition> transitions, Instant started) {
    public List<Transition> of(String recipe) {
      return transitions.stream().filter(t -> t.recipe().equals(recipe)).toList();
    }
  }

  private LiveDetection() {}

  static Policy policy(String recipe, String model, Policy.Detection.Mode mode) {
    return Policy.builder(recipe, Map.of("job", "vllm", "model_name", model), 3)
        .minDrafts(10)
        .forDuration(Duration.ZERO)
        .keepFiringFor(Duration.ofSeconds(10))
        .acceptanceRate(new Threshold(0.3, OptionalDouble.empty(), Optional.empty()))
        .detection(new Policy.Detection(mode, Duration.ofDays(30)))
        .build();
  }

  /**
   * Evaluates live, every {@link #INTERVAL} of the wall clock while the scenario plays: what `make
   * detect-bench` measures (delays include scraping and ingestion). Not for tests.
   */
  public static Run run(Path stateDir, Duration length) throws Exception {
    return run(stateDir, length, false);
  }

  /**
   * Evaluates at every {@link #INTERVAL} of the scenario's timeline once Prometheus has scraped it
   * all (Timeline): the same decisions whatever the machine's speed. For tests.
   */
  public static Run atFixedPoints(Path stateDir, Duration length) throws Exception {
    return run(stateDir, length, true);
  }

  private static Run run(Path stateDir, Duration length, boolean fixedPoints) throws Exception {
    List<Policy> policies =
        List.of(
            policy("sequential", "it/sequential", Policy.Detection.Mode.SEQUENTIAL),
            policy("window", "it/window", Policy.Detection.Mode.WINDOW));
    List<Transition> seen = Collections.synchronizedList(new ArrayList<>());
    try (Fleet fleet = Fleet.start("/dev/specwatch/testing/sequential-it.yaml")) {
      PrometheusClient client =
          new PrometheusClient(PrometheusSettings.of(fleet.prometheus().baseUri()));
      MutableClock fixed = new MutableClock(fleet.startedAt());
      Clock clock = fixedPoints ? fixed : Clock.systemUTC();
      AlertService service =
          AlertService.builder(
                  new Evaluator(client, clock),
                  new AlertEngine(SpecwatchConfig.Alerting.defaults()),
                  clock)
              .files(stateDir)
              .learner(new Learner(client))
              .sink(seen::add)
              .build();
      if (fixedPoints) {
        Timeline.awaitScraped(fleet, length);
        Timeline.everyStep(
            fixed,
            fleet.startedAt(),
            INTERVAL,
            length,
            () -> service.runOnce(policies, WINDOW, INTERVAL));
        return new Run(List.copyOf(seen), fleet.startedAt());
      }
      Instant end = fleet.startedAt().plus(length);
      while (Instant.now().isBefore(end)) {
        Instant next = Instant.now().plus(INTERVAL);
        service.runOnce(policies, WINDOW, INTERVAL);
        long wait = Duration.between(Instant.now(), next).toMillis();
        if (wait > 0) {
          Thread.sleep(wait); // the evaluation schedule itself, not synchronisation
        }
      }
      return new Run(List.copyOf(seen), fleet.startedAt());
    }
  }
}
