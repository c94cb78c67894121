package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SilenceCommandTest {
  @TempDir Path dir;

  private Path config() throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        dir.resolve("alerts/qwen3.yaml"),
        "recipe: qwen3-mtp\nmatch: {model_name: qwen3}\nnum_speculative_tokens: 3\n");
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(
        config,
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n" + "state: {dir: state}\n");
    return config;
  }

  @Test
  void aSilenceOfEveryRecipeNeedsConfirmAllAndAnExposedListenIsAWarning() throws IOException {
    Path config = config();
    String[] add = {
      "silence", "add", "--config", config.toString(), "--recipe", "*", "--comment", "maintenance"
    };
    MainTest.Result refused = MainTest.run(add);
    assertThat(refused.exit()).isEqualTo(2);
    assertThat(refused.err()).contains("silences every recipe").contains("--confirm-all");
    assertThat(Files.exists(dir.resolve("state/silences.json"))).as("nothing written").isFalse();
    String[] confirmed = java.util.Arrays.copyOf(add, add.length + 1);
    confirmed[add.length] = "--confirm-all";
    assertThat(MainTest.run(confirmed).exit()).isZero();

    Files.writeString(
        config,
        Files.readString(config) + "server: {listen: \"0.0.0.0:9464\"}\n",
        java.nio.charset.StandardCharsets.UTF_8);
    MainTest.Result validate = MainTest.run("validate", "--config", config.toString());
    assertThat(validate.exit()).isZero();
    assertThat(validate.out())
        .contains("warning: server.listen 0.0.0.0:9464 is reachable from other machines")
        .contains("set server.bearer_token");
  }

  @Test
  void addListAndExpireASilence() throws IOException {
    Path config = config();
    MainTest.Result added =
        MainTest.run(
            "silence",
            "add",
            "--config",
            config.toString(),
            "--recipe",
            "qwen*",
            "--rule",
            "regression",
            "--duration",
            "2h",
            "--comment",
            "new build",
            "--author",
            "ops");
    assertThat(added.exit()).as(added.err()).isZero();
    String id = added.out().replaceAll("^silence ([0-9a-f]+):.*\\s*$", "$1");
    assertThat(Files.exists(dir.resolve("state/silences.json"))).isTrue();

    MainTest.Result listed = MainTest.run("silence", "list", "--config", config.toString());
    assertThat(listed.out())
        .contains(id)
        .contains("qwen*")
        .contains("regression")
        .contains("new build")
        .contains("(ops)");

    assertThat(MainTest.run("silence", "expire", "--config", config.toString(), id).exit())
        .isZero();
    assertThat(MainTest.run("silence", "list", "--config", config.toString()).out())
        .isEqualTo("no active silences\n");
    assertThat(MainTest.run("silence", "list", "--config", config.toString(), "--all").out())
        .contains("[expired]");
    assertThat(MainTest.run("silence", "expire", "--config", config.toString(), id).exit())
        .isEqualTo(2);
  }

  @Test
  void addRejectsARecipeThatMatchesNothingWithADidYouMeanUnlessForced() throws IOException {
    Path config = config();
    MainTest.Result typo =
        MainTest.run(
            "silence", "add", "-c", config.toString(), "--recipe", "qwen3-mpt", "--comment", "x");
    assertThat(typo.exit()).isEqualTo(2);
    assertThat(typo.err())
        .contains("specwatch silence add: 'qwen3-mpt' matches no recipe")
        .contains("did you mean 'qwen3-mtp'?")
        .contains("--force");
    assertThat(Files.exists(dir.resolve("state/silences.json"))).isFalse();

    MainTest.Result forced =
        MainTest.run(
            "silence",
            "add",
            "-c",
            config.toString(),
            "--recipe",
            "llama*",
            "--comment",
            "not deployed yet",
            "--force");
    assertThat(forced.exit()).as(forced.err()).isZero();
  }

  @Test
  void addRejectsAnUnknownRuleWithADidYouMean() throws IOException {
    MainTest.Result r =
        MainTest.run(
            "silence",
            "add",
            "-c",
            config().toString(),
            "--recipe",
            "qwen3-mtp",
            "--rule",
            "acceptance_rat",
            "--comment",
            "x");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("unknown rule 'acceptance_rat' (did you mean 'acceptance_rate'?)");
  }

  @Test
  void listPrintsJson() throws IOException {
    Path config = config();
    MainTest.run(
        "silence", "add", "-c", config.toString(), "--recipe", "qwen*", "--comment", "a \"b\"");
    MainTest.Result r =
        MainTest.run("silence", "list", "-c", config.toString(), "--output", "json");
    assertThat(r.exit()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("silences")).hasSize(1);
    JsonNode s = json.get("silences").get(0);
    assertThat(s.get("recipe").asText()).isEqualTo("qwen*");
    assertThat(s.get("comment").asText()).isEqualTo("a \"b\"");
    assertThat(s.get("rule").isNull()).isTrue();
    assertThat(s.get("active").asBoolean()).isTrue();
    assertThat(s.fieldNames())
        .toIterable()
        .containsExactly(
            "id", "recipe", "rule", "starts_at", "ends_at", "comment", "created_by", "active");
  }
}
