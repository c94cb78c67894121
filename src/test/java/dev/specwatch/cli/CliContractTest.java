package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exit codes, messages and JSON of the commands, as docs/CLI.md documents them. */
class CliContractTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private Path config(String extra) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        dir.resolve("alerts/qwen3.yaml"),
        "recipe: qwen3-mtp\nmatch: {model_name: qwen3}\nnum_speculative_tokens: 3\n");
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(
        config,
        "prometheus: {url: http://127.0.0.1:9}\npolicies: alerts\nstate: {dir: state}\n" + extra);
    return config;
  }

  @Test
  void everyCommandSummaryInHelpIsAWholeSentence() {
    MainTest.Result r = MainTest.run("--help");
    List<String> summaries = new ArrayList<>();
    boolean inCommands = false;
    for (String line : r.out().split("\n")) {
      if (line.startsWith("Commands:")) {
        inCommands = true;
      } else if (inCommands && line.isBlank()) {
        break;
      } else if (inCommands && line.matches("^  \\S.*")) {
        summaries.add(line.strip().replaceFirst("^\\S+\\s+", ""));
      } else if (inCommands) {
        int last = summaries.size() - 1;
        summaries.set(last, summaries.get(last) + " " + line.strip());
      }
    }
    assertThat(summaries).hasSize(13).allSatisfy(s -> assertThat(s).matches("[A-Z].*\\.$"));
  }

  @Test
  void validateRejectsAListenPortOutOfRangeWithFileLineAndKey() throws IOException {
    Path config = config("server:\n  listen: 127.0.0.1:99999\n");
    MainTest.Result r = MainTest.run("validate", "-c", config.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err())
        .contains(config + ":5:11: server.listen: expected HOST:PORT with a port from 0 to 65535");
  }

  @Test
  void validateNamesThePostgresStateWithoutItsCredentials() throws IOException {
    Path config =
        Files.writeString(
            config("").resolveSibling("postgres.yaml"),
            "prometheus: {url: http://127.0.0.1:9}\npolicies: alerts\n"
                + "state:\n  backend: postgres\n"
                + "  url: \"jdbc:postgresql://db:5432/specwatch?password=url-secret-1\"\n"
                + "  password: \"pw-secret-2\"\n  shards: 3\n");
    MainTest.Result r = MainTest.run("validate", "-c", config.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains(
            "state: postgres jdbc:postgresql://db:5432/specwatch (3 evaluation shards, check-in"
                + " every 2s; the database is not contacted)")
        .doesNotContain("url-secret-1")
        .doesNotContain("pw-secret-2");
  }

  @Test
  void validatePrintsJsonForAValidConfig() throws IOException {
    MainTest.Result r = MainTest.run("validate", "-c", config("").toString(), "--output", "json");
    assertThat(r.exit()).isZero();
    JsonNode json = JSON.readTree(r.out());
    assertThat(json.get("valid").asBoolean()).isTrue();
    assertThat(json.get("recipes").get(0).get("recipe").asText()).isEqualTo("qwen3-mtp");
    assertThat(json.get("recipes").get(0).get("num_speculative_tokens").asInt()).isEqualTo(3);
    assertThat(json.get("recipes").get(0).get("engine").asText()).isEqualTo("vllm");
  }

  @Test
  void validatePrintsEveryErrorAsJsonAndExits2() throws IOException {
    Path config = config("evaluation: {interval: 0s, windw: 5m}\n");
    MainTest.Result r = MainTest.run("validate", "-c", config.toString(), "--output", "json");
    assertThat(r.exit()).isEqualTo(2);
    JsonNode json = JSON.readTree(r.out());
    assertThat(json.get("valid").asBoolean()).isFalse();
    assertThat(json.get("errors")).hasSize(2);
    JsonNode first = json.get("errors").get(0);
    assertThat(first.get("file").asText()).isEqualTo(config.toString());
    assertThat(first.get("line").asInt()).isEqualTo(4);
    assertThat(json.get("errors").findValuesAsText("key"))
        .containsExactlyInAnyOrder("evaluation.interval", "evaluation.windw");
  }

  @Test
  void aMalformedDurationOptionIsAUsageError() throws IOException {
    MainTest.Result r =
        MainTest.run("check", "-c", config("").toString(), "--window", "five minutes");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err())
        .contains("Invalid value for option '--window': expected a duration like 30s, 5m");
  }

  @Test
  void anUnreachableDatasourceExits3NamingTheEndpoint() throws IOException {
    MainTest.Result r =
        MainTest.run("advise", "-c", config("").toString(), "--recipe", "qwen3-mtp");
    assertThat(r.exit()).isEqualTo(3);
    assertThat(r.err()).startsWith("specwatch advise: ").contains("127.0.0.1:9");
  }

  @Test
  void anUnknownRecipeIsAUsageErrorWithADidYouMean() throws IOException {
    MainTest.Result r = MainTest.run("advise", "-c", config("").toString(), "--recipe", "qwen3-mt");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "specwatch advise: no recipe 'qwen3-mt' (did you mean 'qwen3-mtp'?); known:"
                + " qwen3-mtp\n");
  }

  @Test
  void rulesRenderAlertsFromTheCliIsTheCommittedFile() throws IOException {
    MainTest.Result r =
        MainTest.run("rules", "render", "--alerts", "--config", "deploy/specwatch.example.yaml");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(Files.readString(Path.of("alerts/prometheus/specwatch.alerts.yaml")));
  }

  @Test
  void rulesRenderAlertsWithoutAConfigIsAUsageError() {
    MainTest.Result r = MainTest.run("rules", "render", "--alerts");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("specwatch rules render: --alerts needs --config FILE\n");
  }
}
