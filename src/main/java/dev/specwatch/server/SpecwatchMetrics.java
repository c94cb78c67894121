package dev.specwatch.server;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;

/** specwatch's own metrics, served on {@code /metrics} in the Prometheus text format. */
public final class SpecwatchMetrics {
  private final PrometheusRegistry registry = new PrometheusRegistry();

  private final Histogram evaluationDuration =
      Histogram.builder()
          .name("specwatch_evaluation_duration_seconds")
          .help(
              "Duration of one evaluation of every recipe, incl. alerting and queueing notifications.")
          .classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
          .register(registry);
  private final Counter evaluations =
      Counter.builder()
          .name("specwatch_evaluations_total")
          .help("Evaluations by result: ok, or datasource_error when any query failed.")
          .labelNames("result")
          .register(registry);
  private final Counter queries =
      Counter.builder()
          .name("specwatch_queries_total")
          .help("PromQL queries sent to the datasource.")
          .register(registry);
  private final Gauge lastSuccess =
      Gauge.builder()
          .name("specwatch_last_successful_evaluation_timestamp_seconds")
          .help("When the last evaluation without datasource errors finished (Unix seconds).")
          .register(registry);
  private final Gauge recipes =
      Gauge.builder()
          .name("specwatch_recipes")
          .help("Recipes by state at the last evaluation.")
          .labelNames("state")
          .register(registry);
  private final Gauge alerts =
      Gauge.builder()
          .name("specwatch_alerts")
          .help("Active alerts by state (pending, firing).")
          .labelNames("state")
          .register(registry);
  private final Gauge notificationsSent =
      Gauge.builder()
          .name("specwatch_notifications_sent")
          .help("Notifications delivered since start, by notifier.")
          .labelNames("notifier")
          .register(registry);
  private final Gauge notificationsFailed =
      Gauge.builder()
          .name("specwatch_notification_failures")
          .help("Failed notification attempts since start (retried or given up), by notifier.")
          .labelNames("notifier")
          .register(registry);
  private final Gauge outboxDepth =
      Gauge.builder()
          .name("specwatch_outbox_depth")
          .help("Notifications waiting in the outbox.")
          .register(registry);
  private final Gauge transitionsQueued =
      Gauge.builder()
          .name("specwatch_transitions_queued")
          .help("Alert transitions recorded but not yet handed to the outbox.")
          .register(registry);

  public Histogram evaluationDuration() {
    return evaluationDuration;
  }

  public Counter evaluations() {
    return evaluations;
  }

  public Counter queries() {
    return queries;
  }

  public Gauge lastSuccess() {
    return lastSuccess;
  }

  public Gauge recipes() {
    return recipes;
  }

  public Gauge alerts() {
    return alerts;
  }

  public Gauge notificationsSent() {
    return notificationsSent;
  }

  public Gauge notificationsFailed() {
    return notificationsFailed;
  }

  public Gauge outboxDepth() {
    return outboxDepth;
  }

  public Gauge transitionsQueued() {
    return transitionsQueued;
  }

  public void notifications(Map<String, Long> sent, Map<String, Long> failed) {
    sent.forEach((n, v) -> notificationsSent.labelValues(n).set(v));
    failed.forEach((n, v) -> notificationsFailed.labelValues(n).set(v));
  }

  public String scrape() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }
}
