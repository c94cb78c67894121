package dev.specwatch.model;

import java.net.URI;
import java.time.Duration;
import java.util.List;
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
   * @param grouping how alerts firing together become one message; {@link Grouping#OFF}: one each
   * @param presses who may press the buttons
   */
  record Slack(
      String name,
      Optional<Secret> token,
      Optional<Secret> webhookUrl,
      Optional<String> channel,
      Optional<URI> apiUrl,
      Duration repeatInterval,
      Optional<Secret> appToken,
      Grouping grouping,
      Presses presses)
      implements NotifierConfig {
    public static final Duration DEFAULT_REPEAT_INTERVAL = Duration.ofHours(4);

    /** Without Socket Mode and without grouping: one message per alert (commands, tests). */
    public Slack(
        String name,
        Optional<Secret> token,
        Optional<Secret> webhookUrl,
        Optional<String> channel,
        Optional<URI> apiUrl,
        Duration repeatInterval) {
      this(
          name,
          token,
          webhookUrl,
          channel,
          apiUrl,
          repeatInterval,
          Optional.empty(),
          Grouping.OFF,
          Presses.IN_CHANNEL);
    }

    /**
     * Who may press an alert message's buttons ({@code actions_allowed}, docs/NOTIFICATIONS.md). A
     * press counts when it comes from the channel the message is in (or one of {@code channels})
     * and, when {@code users} or {@code userGroups} are given, from one of those users or a member
     * of one of those user groups. Anyone else is told "not allowed" in Slack, and the press is
     * logged.
     *
     * @param users Slack user ids ({@code U…}, {@code W…})
     * @param userGroups Slack user group ids ({@code S…}), members read with usergroups.users.list
     * @param channels channel ids a press may come from besides the message's own
     */
    public record Presses(List<String> users, List<String> userGroups, List<String> channels) {
      /** Anyone in the message's own channel. */
      public static final Presses IN_CHANNEL = new Presses(List.of(), List.of(), List.of());

      public Presses {
        users = List.copyOf(users);
        userGroups = List.copyOf(userGroups);
        channels = List.copyOf(channels);
      }

      /** Whether only some people may press: users or user groups are listed. */
      public boolean restricted() {
        return !users.isEmpty() || !userGroups.isEmpty();
      }
    }

    /**
     * Alerts that fire for one channel within {@code groupWait} of the first become one message
     * listing them, edited in place as members join (at most once a {@code groupInterval}) and
     * resolve, each member's detail in its thread (docs/NOTIFICATIONS.md, "Grouping"). Fewer than
     * {@code threshold} alerts within the wait get a message each, as without grouping. Bot-token
     * mode only: a webhook cannot edit a message.
     *
     * @param groupWait how long a channel's first alert waits for others; zero: no grouping
     */
    public record Grouping(Duration groupWait, Duration groupInterval, int threshold) {
      /** Alertmanager's group_wait. */
      public static final Duration DEFAULT_GROUP_WAIT = Duration.ofSeconds(30);

      /**
       * Shorter than Alertmanager's 5m: an edit of one message is cheap, and who watches a storm
       * wants to see its members recover.
       */
      public static final Duration DEFAULT_GROUP_INTERVAL = Duration.ofMinutes(1);

      public static final int DEFAULT_THRESHOLD = 3;

      public static final Grouping DEFAULT =
          new Grouping(DEFAULT_GROUP_WAIT, DEFAULT_GROUP_INTERVAL, DEFAULT_THRESHOLD);

      public static final Grouping OFF =
          new Grouping(Duration.ZERO, DEFAULT_GROUP_INTERVAL, DEFAULT_THRESHOLD);

      public Grouping {
        if (groupWait.isNegative() || groupInterval.isNegative() || threshold < 2) {
          throw new IllegalArgumentException(
              "grouping needs non-negative durations and a threshold of at least 2");
        }
      }

      public boolean enabled() {
        return !groupWait.isZero();
      }
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

  /**
   * PagerDuty's Events API v2: a trigger when an alert fires, a resolve with the same dedup key.
   *
   * @param routingKey the integration key of an Events API v2 integration of the service
   * @param url the events endpoint (default {@link #EVENTS_URL}; a proxy or a test stand-in)
   * @param repeatInterval while firing, a trigger again with the same dedup key (PagerDuty folds it
   *     into the open alert, or opens one again after an auto-resolve); empty: never
   */
  record PagerDuty(String name, Secret routingKey, URI url, Optional<Duration> repeatInterval)
      implements NotifierConfig {
    public static final URI EVENTS_URL = URI.create("https://events.pagerduty.com/v2/enqueue");

    @Override
    public String type() {
      return "pagerduty";
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
