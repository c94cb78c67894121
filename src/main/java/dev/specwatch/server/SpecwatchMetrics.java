package dev.specwatch.server;

import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.notify.DeliveryListener;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.store.StateHealth;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * specwatch's own metrics, served on {@code /metrics} in the Prometheus text format. One instance
 * per process: counters keep counting across config reloads. Thread-safe. Without exemplars:
 * specwatch has no tracer, and the client would keep a scheduler thread to rate-limit them.
 */
public final class SpecwatchMetrics implements DeliveryListener {
  private final PrometheusRegistry registry = new PrometheusRegistry();

  private final Histogram evaluationDuration =
      Histogram.builder()
          .name("specwatch_evaluation_duration_seconds")
          .help(
              "Duration of one evaluation of every recipe, incl. alerting and queueing notifications.")
          .classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
          .withoutExemplars()
          .register(registry);
  private final Counter evaluations =
      Counter.builder()
          .name("specwatch_evaluations_total")
          .help("Evaluations by result: ok, or datasource_error when any query failed.")
          .labelNames("result")
          .withoutExemplars()
          .register(registry);
  private final Counter queries =
      Counter.builder()
          .name("specwatch_queries_total")
          .help("PromQL queries sent to the datasource.")
          .withoutExemplars()
          .register(registry);
  private final Gauge lastSuccess =
      Gauge.builder()
          .name("specwatch_last_successful_evaluation_timestamp_seconds")
          .help("When the last evaluation without datasource errors finished (Unix seconds).")
          .withoutExemplars()
          .register(registry);
  private final Gauge recipes =
      Gauge.builder()
          .name("specwatch_recipes")
          .help("Recipes by state at the last evaluation.")
          .labelNames("state")
          .withoutExemplars()
          .register(registry);
  private final Gauge alerts =
      Gauge.builder()
          .name("specwatch_alerts")
          .help("Active alerts by state (pending, firing).")
          .labelNames("state")
          .withoutExemplars()
          .register(registry);
  private final Counter notificationsSent =
      Counter.builder()
          .name("specwatch_notifications_sent_total")
          .help("Notifications delivered, by notifier.")
          .labelNames("notifier")
          .withoutExemplars()
          .register(registry);
  private final Counter notificationsFailed =
      Counter.builder()
          .name("specwatch_notification_failures_total")
          .help("Failed notification attempts (retried or given up), by notifier.")
          .labelNames("notifier")
          .withoutExemplars()
          .register(registry);
  private final Gauge outboxDepth =
      Gauge.builder()
          .name("specwatch_outbox_depth")
          .help("Notifications waiting in the outbox.")
          .withoutExemplars()
          .register(registry);
  private final Gauge transitionsQueued =
      Gauge.builder()
          .name("specwatch_transitions_queued")
          .help("Alert transitions recorded but not yet handed to the outbox.")
          .withoutExemplars()
          .register(registry);

  private final Gauge stateWritable =
      Gauge.builder()
          .name("specwatch_state_writable")
          .help(
              "1 while the state directory can be written; 0 while it cannot (evaluation and"
                  + " notifications are paused: nothing is sent that cannot be recorded).")
          .withoutExemplars()
          .register(registry);
  private final Gauge stateRecoveries =
      Gauge.builder()
          .name("specwatch_state_files_recovered")
          .help("Damaged state files moved aside since start (see /api/v1/status).")
          .withoutExemplars()
          .register(registry);

  /** Records one evaluation cycle that took {@code seconds} and finished at {@code at}. */
  public void evaluated(Evaluation e, AlertState state, double seconds, Instant at) {
    evaluationDuration.observe(seconds);
    queries.inc(e.queries());
    boolean error = e.anyDatasourceError();
    evaluations.labelValues(error ? "datasource_error" : "ok").inc();
    if (!error) {
      lastSuccess.set(at.toEpochMilli() / 1000.0);
    }
    Map<RecipeState, Integer> states = new EnumMap<>(RecipeState.class);
    for (RecipeState s : RecipeState.values()) {
      states.put(s, 0);
    }
    e.recipes().forEach(r -> states.merge(r.state(), 1, Integer::sum));
    states.forEach((s, n) -> recipes.labelValues(s.key()).set(n));
    for (AlertPhase phase : AlertPhase.values()) {
      long n = state.alerts().values().stream().filter(a -> a.phase() == phase).count();
      alerts.labelValues(phase.name().toLowerCase(Locale.ROOT)).set((double) n);
    }
    transitionsQueued.set(state.queued().size());
  }

  /** Starts every notifier's counters at 0, so rate() and increase() work from the first send. */
  public void notifiers(Collection<String> names) {
    for (String name : names) {
      notificationsSent.labelValues(name);
      notificationsFailed.labelValues(name);
      health.putIfAbsent(name, NotifierHealth.NONE);
    }
  }

  @Override
  public void delivered(String notifier) {
    notificationsSent.labelValues(notifier).inc();
    health.compute(notifier, (k, h) -> (h == null ? NotifierHealth.NONE : h).delivered(now()));
  }

  @Override
  public void failed(String notifier) {
    notificationsFailed.labelValues(notifier).inc();
    health.compute(notifier, (k, h) -> (h == null ? NotifierHealth.NONE : h).failed(now()));
  }

  /** A notifier's deliveries since start, for the status page and /api/v1/status. */
  public record NotifierHealth(
      long sent,
      long failures,
      @com.fasterxml.jackson.annotation.JsonProperty("last_sent") String lastSent,
      @com.fasterxml.jackson.annotation.JsonProperty("last_failure") String lastFailure) {
    static final NotifierHealth NONE = new NotifierHealth(0, 0, null, null);

    NotifierHealth delivered(String at) {
      return new NotifierHealth(sent + 1, failures, at, lastFailure);
    }

    NotifierHealth failed(String at) {
      return new NotifierHealth(sent, failures + 1, lastSent, at);
    }
  }

  private final java.util.concurrent.ConcurrentMap<String, NotifierHealth> health =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Each notifier's deliveries and failures since start. */
  public java.util.Map<String, NotifierHealth> notifierHealth() {
    return new java.util.TreeMap<>(health);
  }

  private static String now() {
    return Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
  }

  /** The text exposition, with the outbox depth and the state directory read at scrape time. */
  public String scrape(int outboxPending, StateHealth health) throws IOException {
    outboxDepth.set(outboxPending);
    stateWritable.set(health.problem().isEmpty() ? 1 : 0);
    stateRecoveries.set(health.recoveries().size());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }
}
