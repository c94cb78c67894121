package dev.specwatch.notify.slack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.schedule.DaemonAccess;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.FakeSocketMode;
import dev.specwatch.testing.Fleet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Buttons on an alert message, pressed in a local stand-in of Slack's Socket Mode: the daemon, the
 * official SDK's Socket Mode client, a real Prometheus scraping the simulator. The regression
 * lasts, so the alert is firing whenever a button is pressed.
 */
class SlackActionsIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void acknowledgeAndSilenceFromSlackActAndTheMessageSaysWhoDidWhat() throws Exception {
    try (Fleet fleet = Fleet.start("/dev/specwatch/testing/slack-actions.yaml");
        FakeSlackApi slack = new FakeSlackApi();
        FakeSocketMode socket = new FakeSocketMode()) {
      slack.socketMode(socket.url());
      DaemonProcess.policy(dir.resolve("alerts"), "daemon", "it/daemon", "for: 4s\n");
      Path config =
          DaemonProcess.Config.of(fleet.prometheus().baseUri())
              .slack(
                  "xoxb-actions-bot-2024",
                  slack.apiUrl(),
                  "app_token: xapp-actions-app-2024, grouping: {group_wait: 2s}")
              .write(dir.resolve("specwatch.yaml"));
      try (var daemon =
          DaemonAccess.start(config, new ConfigLoader(k -> null), Clock.systemUTC())) {
        assertThat(socket.awaitClient(30)).as("the daemon opened Socket Mode").isTrue();
        // The firing message carries the buttons, valued with the alert's id.
        FakeSlackApi.Call post =
            await()
                .atMost(Duration.ofSeconds(60))
                .until(
                    () ->
                        slack.calls().stream()
                            .filter(c -> c.method().equals("chat.postMessage"))
                            .filter(
                                c ->
                                    c.params().getOrDefault("blocks", "").contains("specwatch_ack"))
                            .findFirst()
                            .orElse(null),
                    c -> c != null);
        assertThat(post.params().get("blocks"))
            .contains("specwatch_silence_1h")
            .contains("specwatch_silence_resolved")
            .contains("\"value\":\"daemon/acceptance_rate\"");
        String ts = postedTs(slack, post);
        // A person presses a button on a message they see; the daemon has recorded the message by
        // then. The stand-in answers faster than the daemon writes the record: wait for it.
        Path messages = dir.resolve("state/slack-messages.json");
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    Files.exists(messages)
                        && Files.readString(messages).contains("daemon/acceptance_rate"));
        // Acknowledge: the envelope is acknowledged, the message says who, the ack button goes.
        String ack =
            socket.press("specwatch_ack", "daemon/acceptance_rate", "U0ONCALL", "#mtp", ts);
        FakeSlackApi.Call acked = update(slack, "Acknowledged by ");
        assertThat(acked.params().get("blocks")).contains("@U0ONCALL");
        assertThat(socket.acks()).contains(ack);
        assertThat(acked.params().get("blocks"))
            .doesNotContain("specwatch_ack")
            .contains("specwatch_silence_4h");
        assertThat(acked.params().get("ts")).isEqualTo(ts);
        // Silence 1 h: the daemon's own silence, by the Slack user, and the message says until.
        String silence =
            socket.press("specwatch_silence_1h", "daemon/acceptance_rate", "U0ONCALL", "#mtp", ts);
        FakeSlackApi.Call silenced = update(slack, "Silenced for 1 h by ");
        assertThat(silenced.params().get("blocks")).contains("@U0ONCALL").contains("until");
        assertThat(socket.acks()).contains(silence);
        assertThat(silenced.params().get("blocks")).doesNotContain("specwatch_silence_1h");
        JsonNode silences =
            JSON.readTree(get("http://127.0.0.1:" + daemon.port() + "/api/v1/silences"))
                .path("silences");
        assertThat(silences).hasSize(1);
        assertThat(silences.get(0).path("recipe").asText()).isEqualTo("daemon");
        assertThat(silences.get(0).path("rule").asText()).isEqualTo("acceptance_rate");
        assertThat(silences.get(0).path("created_by").asText()).isEqualTo("Slack user oncall");
        // No secret on the wire to Socket Mode or in what the daemon serves.
        assertThat(get("http://127.0.0.1:" + daemon.port() + "/api/v1/status"))
            .doesNotContain("xapp-actions-app-2024");
        // The app token went only to apps.connections.open, the bot token to the chat methods.
        assertThat(slack.calls())
            .filteredOn(c -> c.method().equals("apps.connections.open"))
            .isNotEmpty()
            .allMatch(c -> "Bearer xapp-actions-app-2024".equals(c.authorization()));
        assertThat(slack.calls())
            .filteredOn(c -> c.method().startsWith("chat."))
            .allMatch(c -> "Bearer xoxb-actions-bot-2024".equals(c.authorization()));
      }
    }
  }

  private static String postedTs(FakeSlackApi slack, FakeSlackApi.Call post) {
    // The stand-in numbers its messages: the first post of the run is the firing message.
    List<FakeSlackApi.Call> posts =
        slack.calls().stream().filter(c -> c.method().equals("chat.postMessage")).toList();
    assertThat(posts.get(0)).isEqualTo(post);
    return "1764504000.1000";
  }

  private static FakeSlackApi.Call update(FakeSlackApi slack, String text) {
    return await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                slack.calls().stream()
                    .filter(c -> c.method().equals("chat.update"))
                    .filter(c -> c.params().getOrDefault("blocks", "").contains(text))
                    .findFirst()
                    .orElse(null),
            c -> c != null);
  }

  private static String get(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
