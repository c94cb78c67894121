package dev.specwatch.notify.slack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.gson.Gson;
import com.slack.api.model.manifest.AppManifest;
import com.slack.api.util.json.GsonFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * deploy/slack/app-manifest.yaml is an app manifest the official Slack SDK reads whole (no key its
 * model does not know), with Socket Mode and interactivity on, and the bot scopes of every Web API
 * method specwatch calls.
 */
class SlackAppManifestTest {
  static final Path MANIFEST = Path.of("deploy/slack/app-manifest.yaml");

  /** The Web API methods specwatch calls with the bot token, and the scopes each needs. */
  static final Map<String, List<String>> SCOPES =
      Map.of(
          "chatPostMessage", List.of("chat:write"),
          "chatUpdate", List.of("chat:write"),
          "chatPostEphemeral", List.of("chat:write"),
          "usergroupsUsersList", List.of("usergroups:read"),
          "conversationsList", List.of("channels:read", "groups:read"),
          "conversationsHistory", List.of("channels:history", "groups:history"));

  final ObjectMapper json = new ObjectMapper();

  JsonNode manifest() throws IOException {
    return new ObjectMapper(new YAMLFactory()).readTree(Files.readString(MANIFEST));
  }

  @Test
  void theSlackSdkReadsTheWholeManifest() throws IOException {
    String text = json.writeValueAsString(manifest());
    Gson gson = GsonFactory.createSnakeCase();
    AppManifest m = gson.fromJson(text, AppManifest.class);
    // What the SDK's model does not know would be dropped on the way back.
    assertThat(json.readTree(gson.toJson(m))).isEqualTo(json.readTree(text));
    assertThat(m.getSettings().getSocketModeEnabled()).isTrue();
    assertThat(m.getSettings().getInteractivity().getIsEnabled()).isTrue();
    assertThat(m.getFeatures().getBotUser().getDisplayName()).isEqualTo("specwatch");
  }

  @Test
  void everyMethodSpecwatchCallsHasItsScopeAndNoScopeIsSpare() throws IOException {
    List<String> bot =
        json.convertValue(
            manifest().path("oauth_config").path("scopes").path("bot"),
            json.getTypeFactory().constructCollectionType(List.class, String.class));
    Pattern call =
        Pattern.compile(
            "\\.(chat[A-Z]\\w*|conversations[A-Z]\\w*|users[A-Z]\\w*|usergroups[A-Z]\\w*|"
                + "reactions[A-Z]\\w*|files[A-Z]\\w*|pins[A-Z]\\w*)\\(");
    java.util.Set<String> called = new java.util.TreeSet<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = call.matcher(Files.readString(f));
        while (m.find()) {
          called.add(m.group(1));
        }
      }
    }
    assertThat(SCOPES.keySet())
        .as("a new Web API method needs its scope here and in the manifest")
        .containsAll(called);
    List<String> needed = called.stream().flatMap(c -> SCOPES.get(c).stream()).distinct().toList();
    assertThat(bot).containsExactlyInAnyOrderElementsOf(needed);
  }
}
