package dev.specwatch.testing;

import dev.specwatch.sim.Scenario;
import dev.specwatch.sim.ScenarioLoader;
import dev.specwatch.sim.Simulator;
import dev.specwatch.sim.SimulatorServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One real Prometheus, loaded with the project's recording rules, scraping the simulator that
 * serves {@code it-fleet.yaml} as job {@code vllm}. Started once per test JVM and shared by every
 * integration test that declares a {@code Fleet} parameter (each test reads its own models), so the
 * suite pays Prometheus' start-up and the rate windows' warm-up once.
 */
public final class Fleet implements AutoCloseable {
  public static final String SCENARIO = "/dev/specwatch/testing/it-fleet.yaml";
  public static final Path RULES = Path.of("rules/vllm-spec-decode.rules.yaml");

  private final SimulatorServer simulator;
  private final PrometheusServer prometheus;
  private final Scenario scenario;
  private final Instant started;
  private HeldClock heldClock;

  private Fleet(
      SimulatorServer simulator, PrometheusServer prometheus, Scenario scenario, Instant started) {
    this.simulator = simulator;
    this.prometheus = prometheus;
    this.scenario = scenario;
    this.started = started;
  }

  static Fleet start() throws IOException, URISyntaxException {
    return start(SCENARIO);
  }

  /**
   * A fleet of its own for a test that needs the scenario's timeline to start with the test; the
   * caller closes it.
   */
  public static Fleet start(String scenarioResource) throws IOException, URISyntaxException {
    return start(scenarioResource, Clock.systemUTC());
  }

  /**
   * A fleet whose scenario stands at its first moment (counters at rest: idle) until {@code
   * clock.release()}; {@link #startedAt} is then the release.
   */
  public static Fleet startHeld(String scenarioResource, HeldClock clock)
      throws IOException, URISyntaxException {
    return start(scenarioResource, clock);
  }

  private static Fleet start(String scenarioResource, Clock clock)
      throws IOException, URISyntaxException {
    return start(Path.of(Fleet.class.getResource(scenarioResource).toURI()), clock);
  }

  /**
   * A fleet of its own serving a scenario file a test wrote (many models); the caller closes it.
   */
  public static Fleet startFile(Path scenarioFile) throws IOException {
    return start(scenarioFile, Clock.systemUTC());
  }

  private static Fleet start(Path file, Clock clock) throws IOException {
    Scenario scenario = ScenarioLoader.load(file);
    Instant started = Instant.now();
    Simulator sim = new Simulator(scenario, clock);
    SimulatorServer server = SimulatorServer.start(sim, new InetSocketAddress("127.0.0.1", 0));
    try {
      PrometheusServer prometheus =
          PrometheusServer.builder()
              .ruleFile(RULES)
              .job("vllm", "127.0.0.1:" + server.port())
              .start();
      Fleet fleet = new Fleet(server, prometheus, scenario, started);
      if (clock instanceof HeldClock held) {
        fleet.heldClock = held;
      }
      return fleet;
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
  }

  public PrometheusServer prometheus() {
    return prometheus;
  }

  public PromApi api() {
    return new PromApi(prometheus.baseUri());
  }

  public Scenario scenario() {
    return scenario;
  }

  public SimulatorServer simulator() {
    return simulator;
  }

  /** When the scenario's timeline started: phase offsets in the scenario are relative to it. */
  public Instant startedAt() {
    return heldClock != null && heldClock.releasedAt() != null ? heldClock.releasedAt() : started;
  }

  /** How long the scenario has been running. */
  public Duration elapsed() {
    return Duration.between(startedAt(), Instant.now());
  }

  @Override
  public void close() {
    prometheus.close();
    simulator.close();
  }

  /**
   * JUnit 5 extension that injects the shared {@link Fleet}; JUnit closes it (an AutoCloseable in
   * the root store) when the test run ends.
   */
  public static final class Extension implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == Fleet.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      ExtensionContext.Store store = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL);
      return store.getOrComputeIfAbsent(
          Fleet.class.getName(),
          key -> {
            try {
              return start();
            } catch (IOException | URISyntaxException e) {
              throw new IllegalStateException("cannot start the test fleet", e);
            }
          },
          Fleet.class);
    }
  }
}
