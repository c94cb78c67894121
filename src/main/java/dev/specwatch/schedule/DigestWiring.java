package dev.specwatch.schedule;

import dev.specwatch.digest.Digest;
import dev.specwatch.digest.DigestService;
import dev.specwatch.digest.DigestSlack;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.DeliveryResult;
import dev.specwatch.notify.NotificationService;
import dev.specwatch.prometheus.PrometheusClient;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The daemon's digest service: its backend's stores, and the Slack summary when configured. */
final class DigestWiring {
  private static final Logger logger = LoggerFactory.getLogger(DigestWiring.class);

  private DigestWiring() {}

  /** The service for {@code config}'s digest section; null without one (no digest job). */
  static DigestService service(
      Shards shards,
      SpecwatchConfig config,
      PrometheusClient prometheus,
      NotificationService notifications) {
    Optional<SpecwatchConfig.Digest> digest = config.digest();
    if (digest.isEmpty()) {
      return null;
    }
    DigestService service = shards.digest(config, prometheus);
    Optional<String> channel = digest.get().slackChannel();
    if (channel.isPresent()) {
      Optional<Consumer<Digest>> poster =
          DigestSlack.poster(
              notifications.notifiers().values(),
              channel.get(),
              r -> {
                if (!(r instanceof DeliveryResult.Delivered)) {
                  logger.warn("posting the digest summary to {} failed: {}", channel.get(), r);
                }
              });
      if (poster.isEmpty()) {
        logger.warn("digest.slack_channel is set but no slack notifier is configured");
      }
      poster.ifPresent(service::withSlackSummary);
    }
    return service;
  }
}
