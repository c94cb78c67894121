package dev.specwatch.notify.slack;

import com.slack.api.Slack;
import com.slack.api.SlackConfig;
import com.slack.api.util.http.SlackHttpClient;
import dev.specwatch.http.HttpClients;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Slack SDK client per Web API address for the whole process. Every {@link SlackConfig} starts
 * metrics datastores with background threads ("slack-api-metrics") that nothing stops, so a client
 * made per notifier leaked a thread or more on every reload (9 → 209 after 200 reloads). The client
 * holds no token (each call passes its notifier's), so notifiers of one address share it.
 */
final class SlackClients {
  private static final Map<String, Slack> BY_ADDRESS = new ConcurrentHashMap<>();

  private SlackClients() {}

  /** The client for {@code apiUrl} (Slack's own without one), made once. */
  static Slack of(Optional<URI> apiUrl) {
    String key = apiUrl.map(URI::toString).orElse("");
    return BY_ADDRESS.computeIfAbsent(key, k -> create(apiUrl));
  }

  private static Slack create(Optional<URI> apiUrl) {
    SlackConfig slackConfig = new SlackConfig();
    apiUrl.ifPresent(
        url -> {
          String prefix = url.toString().endsWith("/") ? url.toString() : url + "/";
          slackConfig.setMethodsEndpointUrlPrefix(prefix);
        });
    slackConfig.setPrettyResponseLoggingEnabled(false);
    // Off: stats make the SDK call auth.test first to learn the team id (an extra request).
    slackConfig.setStatsEnabled(false);
    // The process' OkHttp client: its call timeout bounds a receiver that trickles its answer.
    return Slack.getInstance(slackConfig, new SlackHttpClient(HttpClients.shared()));
  }
}
