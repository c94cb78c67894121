package dev.specwatch.config;

import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Redaction;
import dev.specwatch.model.Secret;
import dev.specwatch.yaml.MapReader;
import dev.specwatch.yaml.YamlNode;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Reads {@code notifiers:}: one typed {@link NotifierConfig} per entry, picked by {@code type}. */
final class NotifierReader {
  private static final java.util.regex.Pattern CREDENTIAL_HEADER =
      java.util.regex.Pattern.compile(
          "(?i)auth|token|key|secret|cookie|signature|password|credential");

  List<NotifierConfig> read(MapReader r) {
    List<NotifierConfig> notifiers =
        r.list(
            "notifiers",
            (node, path) ->
                MapReader.of(node, path, r.problems(), r.baseDir()).flatMap(this::readNotifier));
    Map<String, Integer> names = new HashMap<>();
    for (int i = 0; i < notifiers.size(); i++) {
      Integer first = names.putIfAbsent(notifiers.get(i).name(), i);
      if (first != null) {
        r.error(
            "notifiers",
            "two notifiers are named '"
                + notifiers.get(i).name()
                + "': give each a distinct name:");
      }
    }
    return notifiers;
  }

  private static NotifierConfig.Slack.Presses readPresses(MapReader a) {
    NotifierConfig.Slack.Presses out =
        new NotifierConfig.Slack.Presses(
            ids(a, "users", "[UW][A-Z0-9]+", "a Slack user id like U024BE7LH"),
            ids(a, "user_groups", "S[A-Z0-9]+", "a Slack user group id like S0614TZR7"),
            ids(a, "channels", "[CGD][A-Z0-9]+", "a Slack channel id like C024BE91L"));
    a.finish();
    return out;
  }

  /** A list of Slack ids, each checked against its shape. */
  private static List<String> ids(MapReader a, String key, String shape, String example) {
    return a.list(
        key,
        (node, path) -> {
          if (node instanceof YamlNode.Scalar id && id.text().matches(shape)) {
            return Optional.of(id.text());
          }
          a.problems().add(node.location(), path, "expected " + example);
          return Optional.empty();
        });
  }

  private static NotifierConfig.Slack.Grouping readGrouping(MapReader g, boolean botToken) {
    Duration wait = g.duration("group_wait", NotifierConfig.Slack.Grouping.DEFAULT_GROUP_WAIT);
    Duration interval =
        g.duration("group_interval", NotifierConfig.Slack.Grouping.DEFAULT_GROUP_INTERVAL);
    int threshold =
        g.integer("threshold", NotifierConfig.Slack.Grouping.DEFAULT_THRESHOLD, 2, 1000);
    if (wait.compareTo(Duration.ofMinutes(10)) > 0) {
      g.error("group_wait", "must be at most 10m (the first alert of a storm waits this long)");
    }
    if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
      g.error("group_interval", "must be at least 1s (Slack takes one write a second a channel)");
    }
    if (!botToken && !wait.isZero()) {
      g.error(
          "group_wait",
          "grouping needs token (a bot token): a webhook cannot edit the group message as alerts"
              + " join and resolve; set group_wait: 0s or use a bot token");
    }
    g.finish();
    return wait.isNegative() || interval.isNegative()
        ? NotifierConfig.Slack.Grouping.OFF
        : new NotifierConfig.Slack.Grouping(wait, interval, threshold);
  }

  private Optional<NotifierConfig> readNotifier(MapReader n) {
    String type = n.requiredString("type");
    String name = n.string("name", type);
    Optional<NotifierConfig> out;
    switch (type) {
      case "slack" -> {
        Optional<Secret> token = n.secret("token").map(Secret::of);
        Optional<Secret> webhook = n.secret("webhook_url").map(Secret::of);
        Optional<String> channel = n.optionalString("channel");
        Optional<URI> api = Converters.url(n, "api_url", false);
        if (token.isPresent() == webhook.isPresent()
            && !Converters.hasAny(n, "token", "webhook_url")) {
          n.error("token", "set token (bot token, xoxb-...) or webhook_url");
        } else if (token.isPresent() && webhook.isPresent()) {
          n.error("webhook_url", "set either token or webhook_url, not both");
        }
        if (token.isPresent() && channel.isEmpty()) {
          n.error("channel", "is required with a bot token (e.g. \"#mtp-alerts\")");
        }
        Duration repeat =
            n.duration("repeat_interval", NotifierConfig.Slack.DEFAULT_REPEAT_INTERVAL);
        Optional<Secret> appToken = n.secret("app_token").map(Secret::of);
        if (appToken.isPresent() && token.isEmpty()) {
          n.error(
              "app_token",
              "needs token (the bot token): the buttons act on messages the bot posted");
        }
        if (n.has("actions_allowed") && appToken.isEmpty()) {
          n.error(
              "actions_allowed",
              "needs app_token: without Socket Mode the alert messages have no buttons");
        }
        NotifierConfig.Slack.Grouping grouping =
            n.map("grouping")
                .map(g -> readGrouping(g, token.isPresent()))
                .orElse(
                    token.isPresent()
                        ? NotifierConfig.Slack.Grouping.DEFAULT
                        : NotifierConfig.Slack.Grouping.OFF);
        out =
            Optional.of(
                new NotifierConfig.Slack(
                    name,
                    token,
                    webhook,
                    channel,
                    api,
                    repeat,
                    appToken,
                    grouping,
                    n.map("actions_allowed")
                        .map(NotifierReader::readPresses)
                        .orElse(NotifierConfig.Slack.Presses.IN_CHANNEL)));
      }
      case "log" -> out = Optional.of(new NotifierConfig.Log(name));
      case "grafana" -> {
        Optional<URI> url = Converters.url(n, "url", true);
        if (!n.has("url")) {
          n.error("url", "is required, e.g. http://127.0.0.1:3000");
        }
        Optional<Secret> token = n.secret("token").map(Secret::of);
        if (token.isEmpty() && !Converters.hasAny(n, "token")) {
          n.error("token", "is required: a Grafana service-account token (or token_file)");
        }
        String uid = n.string("dashboard_uid", "vllm-spec-decode");
        out = url.flatMap(u -> token.map(t -> new NotifierConfig.Grafana(name, u, t, uid)));
      }
      case "webhook" -> {
        Optional<URI> url = Converters.url(n, "url", true);
        if (!n.has("url")) {
          n.error("url", "is required");
        }
        Optional<Secret> secret = n.secret("secret").map(Secret::of);
        Map<String, String> headers = n.stringMap("headers");
        // Header values that carry credentials are scrubbed wherever a receiver quotes them.
        headers.forEach(
            (k, v) -> {
              if (CREDENTIAL_HEADER.matcher(k).find()) {
                Redaction.register(v.replaceFirst("(?i)^(bearer|basic|token)\\s+", ""));
              }
            });
        out = url.map(u -> new NotifierConfig.Webhook(name, u, secret, headers));
      }
      case "pagerduty" -> {
        Optional<Secret> key = n.secret("routing_key").map(Secret::of);
        if (key.isEmpty() && !Converters.hasAny(n, "routing_key")) {
          n.error(
              "routing_key",
              "is required: the integration key of the service's Events API v2 integration (or"
                  + " routing_key_file)");
        }
        Optional<URI> url = Converters.url(n, "url", false);
        Optional<Duration> repeat = n.optionalDuration("repeat_interval");
        out =
            key.map(
                k ->
                    new NotifierConfig.PagerDuty(
                        name, k, url.orElse(NotifierConfig.PagerDuty.EVENTS_URL), repeat));
      }
      case "alertmanager" -> {
        Optional<URI> url = Converters.url(n, "url", true);
        if (!n.has("url")) {
          n.error("url", "is required, e.g. http://127.0.0.1:9093");
        }
        out = url.map(u -> new NotifierConfig.Alertmanager(name, u));
      }
      default -> {
        if (!type.isEmpty()) {
          String hint =
              MapReader.closest(
                      type,
                      Set.of("slack", "log", "webhook", "alertmanager", "grafana", "pagerduty"))
                  .map(h -> " (did you mean '" + h + "'?)")
                  .orElse("");
          n.error(
              "type",
              "unknown notifier type '"
                  + type
                  + "'"
                  + hint
                  + "; one of slack, log, webhook, alertmanager, grafana, pagerduty");
        }
        n.finish();
        return Optional.empty();
      }
    }
    n.finish();
    return out;
  }
}
