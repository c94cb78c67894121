package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.QueryResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A learning failure is reported where it belongs: an outage is the datasource alert's (debug
 * here), a range query the datasource rejects is the recipe's own problem and is warned about once
 * per distinct failure, not every evaluation. (The datasource is a stub: what is tested is the
 * learner's reaction to a failure kind, which a real Prometheus cannot be made to give on cue.)
 */
class LearnerLogTest {
  private static final Instant AT = Instant.parse("2026-11-30T12:00:00Z");
  @TempDir Path dir;
  private final Logger logger = (Logger) LoggerFactory.getLogger(Learner.class);
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

  @BeforeEach
  void attach() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(logs);
    logger.setLevel(null);
  }

  @Test
  void aRejectedQueryWarnsOnceAndAnOutageIsLeftToTheDatasourceAlert() throws IOException {
    List<Policy> policies = policies();
    AtomicReference<PrometheusException> failure = new AtomicReference<>();
    PrometheusApi api =
        new PrometheusApi() {
          @Override
          public QueryResult query(String promql, Optional<Instant> time)
              throws PrometheusException {
            throw failure.get();
          }

          @Override
          public QueryResult queryRange(String promql, Instant start, Instant end, Duration step)
              throws PrometheusException {
            throw failure.get();
          }
        };
    Learner learner = new Learner(api);
    Duration step = Duration.ofMinutes(1);

    failure.set(
        new PrometheusException(
            PrometheusException.Kind.QUERY, 422, "exceeded maximum resolution of 11,000 points"));
    for (int i = 0; i < 3; i++) {
      assertThat(learner.learn(policies, AlertState.empty(), step, AT.plusSeconds(30L * i)))
          .isEmpty();
    }
    assertThat(at(Level.WARN)).hasSize(1);
    assertThat(at(Level.WARN).get(0))
        .contains("q: learning its normal failed", "maximum resolution");

    failure.set(
        new PrometheusException(PrometheusException.Kind.TRANSPORT, 0, "connection refused"));
    learner.learn(policies, AlertState.empty(), step, AT.plusSeconds(120));
    assertThat(at(Level.WARN)).hasSize(1);

    failure.set(new PrometheusException(PrometheusException.Kind.BAD_RESPONSE, 200, "not JSON"));
    learner.learn(policies, AlertState.empty(), step, AT.plusSeconds(150));
    assertThat(at(Level.WARN)).hasSize(2);
    assertThat(at(Level.WARN).get(1)).contains("not JSON");
  }

  @Test
  void aStatusThatRepeatsIsLoggedAtInfoOnceAndAgainWhenItChanges() throws IOException {
    List<Policy> policies = policies();
    PrometheusApi api =
        new PrometheusApi() {
          @Override
          public QueryResult query(String promql, Optional<Instant> time) {
            return new QueryResult.Vector(List.of(), List.of());
          }

          @Override
          public QueryResult queryRange(String promql, Instant start, Instant end, Duration step) {
            return new QueryResult.Matrix(List.of(), List.of()); // no history: nothing to learn
          }
        };
    Learner learner = new Learner(api);
    Duration step = Duration.ofSeconds(30);
    AlertState state = AlertState.empty();
    logger.setLevel(Level.DEBUG);
    // a recipe without data, tried again after each retry period: the same status each time
    for (int i = 0; i < 3; i++) {
      Instant at = AT.plus(Learner.RETRY.multipliedBy(i));
      state = state.withModels(learner.learn(policies, state, step, at));
    }
    assertThat(at(Level.INFO)).containsExactly("q: learning: 0m of active history, needs 24h");
    assertThat(at(Level.DEBUG))
        .containsExactly(
            "q: learning: 0m of active history, needs 24h",
            "q: learning: 0m of active history, needs 24h");
    assertThat(state.models().get("q").model()).isNull();

    // a reload without the recipe forgets it, so its status is news again when it comes back
    learner.learn(List.of(), state, step, AT.plus(Learner.RETRY.multipliedBy(3)));
    learner.learn(policies, state, step, AT.plus(Learner.RETRY.multipliedBy(4)));
    assertThat(at(Level.INFO)).hasSize(2);
  }

  /** The messages logged at {@code level}, in order. */
  private List<String> at(Level level) {
    return logs.list.stream()
        .filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  private List<Policy> policies() throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        dir.resolve("alerts/q.yaml"),
        """
        recipe: q
        match: {model_name: q}
        num_speculative_tokens: 3
        thresholds:
          change: {min_relative_drop: 0.1}
        """);
    Files.writeString(
        dir.resolve("specwatch.yaml"),
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n");
    return new ConfigLoader(k -> null).load(dir.resolve("specwatch.yaml")).policies();
  }
}
