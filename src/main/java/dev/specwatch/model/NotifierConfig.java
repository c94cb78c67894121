package dev.specwatch.model;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A notifier, picked by {@code type:} in the config. One record per type; {@code name} tells two
 * notifiers of the same type apart (default: the type).
 */
public sealed interface NotifierConfig {
  String name();

  String type();

  /** Slack via a bot token (messages can be updated on resolve) or an incoming webhook. */
  /**
   * @param appToken an app-level token ({@code xapp-…}, scope {@code connections:write}): Socket
   *     Mode, for the buttons on alert messages (docs/NOTIFICATIONS.md); empty: link buttons only
   */
  record Slack(
      String name,
      Optional<Secret> token,
      Optional<Secret> webhookUrl,
      Optional<String> channel,
      Optional<URI> apiUrl,
      Duration repeatInterval,
      Optional<Secret> appToken)
      implements NotifierConfig {
    public static final Duration DEFAULT_REPEAT_INTERVAL = Duration.ofHours(4);

    /** Without Socket Mode. */
    public Slack(
        String name,
        Optional<Secret> token,
        Optional<Secret> webhookUrl,
        Optional<String> channel,
        Optional<URI> apiUrl,
        Duration repeatInterval) {
      this(name, token, webhookUrl, channel, apiUrl, repeatInterval, Optional.empty());
    }

    @Override
    public String type() {
      return "slack";
    }
  }

  /** One structured log line per transition. */
  record Log(String name) implements NotifierConfig {
    @Override
    public String type() {
      return "log";
    }
  }

  /** JSON POST to any URL, optionally signed with HMAC-SHA256. */
  record Webhook(String name, URI url, Optional<Secret> secret, Map<String, String> headers)
      implements NotifierConfig {
    @Override
    public String type() {
      return "webhook";
    }
  }

  /** Annotations on the dashboard when alerts fire and resolve (service-account token). */
  record Grafana(String name, URI url, Secret token, String dashboardUid)
      implements NotifierConfig {
    @Override
    public String type() {
      return "grafana";
    }
  }

  /** Alerts pushed to Alertmanager's v2 API. */
  record Alertmanager(String name, URI url) implements NotifierConfig {
    @Override
    public String type() {
      return "alertmanager";
    }
  }
}
