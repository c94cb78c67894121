package dev.specwatch.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private static List<String> problems(Runnable load) {
    try {
      load.run();
    } catch (InvalidInputException e) {
      return e.problems().stream().map(Problem::toString).toList();
    }
    throw new AssertionError("expected the config to be invalid");
  }

  @Test
  void shippedExampleConfigValidates() {
    SpecwatchConfig config =
        new ConfigLoader(Map.<String, String>of()::get)
            .load(Path.of("deploy/specwatch.example.yaml"));
    assertThat(config.policies())
        .extracting(Policy::recipe)
        .containsExactly(
            "deepseek-r1-fp4-trtllm",
            "deepseek-r1-mtp",
            "deepseek-v4-sglang",
            "llama-3.3-70b-eagle",
            "qwen3.8-27b-nvfp4");
    assertThat(config.baselines()).extracting(Policy::recipe).containsExactly("llama-3.3-70b");
    assertThat(config.policies().get(3).speedupBaseline()).contains("llama-3.3-70b");
    Policy qwen = config.policies().get(4);
    assertThat(qwen.numSpeculativeTokens()).isEqualTo(3);
    assertThat(qwen.match()).containsEntry("model_name", "unsloth/Qwen3.8-27B-NVFP4");
    assertThat(qwen.thresholds().acceptanceRate().orElseThrow().clearLevel()).isEqualTo(0.5);
    assertThat(qwen.thresholds().positionAcceptance()).containsKey(0);
    assertThat(config.evaluation().window()).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void reportsEveryErrorAcrossConfigAndPolicies() throws IOException {
    write(
        "alerts/a.yaml",
        """
        recipe: a
        match: {job: vllm, model-name: x}
        num_speculative_tokens: 0
        thresholds:
          acceptance_rate: {below: 1.2}
          mean_accepted_length: {below: 0.5}
        """);
    write(
        "alerts/b.yaml",
        """
        recipe: b
        match: {job: vllm, model_name: y}
        num_speculative_tokens: 2
        tresholds: {}
        thresholds:
          mean_accepted_length: {below: 3.5}
          position_acceptance: {"2": {below: 0.5}}
        """);
    write(
        "alerts/c.yaml",
        """
        recipe: b
        match: {job: vllm, model_name: z}
        num_speculative_tokens: 1
        """);
    Path config =
        write(
            "specwatch.yaml",
            """
        prometheus:
          url: http://127.0.0.1:9090
          timout: 5s
        evaluation: {interval: fast}
        policies: alerts
        notifiers:
          - {type: slak}
        """);
    List<String> problems = problems(() -> new ConfigLoader(k -> null).load(config));
    String a = dir.resolve("alerts/a.yaml").toString();
    String b = dir.resolve("alerts/b.yaml").toString();
    String c = dir.resolve("alerts/c.yaml").toString();
    assertThat(problems)
        .containsExactly(
            a
                + ":2:20: match.model-name: 'model-name' is not a valid Prometheus label name"
                + " ([a-zA-Z_][a-zA-Z0-9_]*, not __*)",
            a
                + ":5:3: thresholds.acceptance_rate: a deployment without speculation"
                + " (num_speculative_tokens: 0) is watched for its throughput only:"
                + " thresholds.throughput is its one rule (docs/SPEEDUP.md)",
            a + ":5:28: thresholds.acceptance_rate.below: must be between 0 and 1, got 1.2",
            a
                + ":6:3: thresholds.mean_accepted_length: a deployment without speculation"
                + " (num_speculative_tokens: 0) is watched for its throughput only:"
                + " thresholds.throughput is its one rule (docs/SPEEDUP.md)",
            a + ":6:33: thresholds.mean_accepted_length.below: must be between 1 and 2, got 0.5",
            b + ":4:1: tresholds: unknown key (did you mean 'thresholds'?)",
            b + ":6:33: thresholds.mean_accepted_length.below: must be between 1 and 3, got 3.5",
            b
                + ":7:25: thresholds.position_acceptance.2: position 2 does not exist with"
                + " num_speculative_tokens 2 (positions 0..1)",
            c + ":1:9: recipe: recipe 'b' is already defined at " + b + ":1:9",
            config + ":3:3: prometheus.timout: unknown key (did you mean 'timeout'?)",
            config
                + ":4:24: evaluation.interval: expected a duration like 30s, 5m, 1h or 7d, got"
                + " 'fast'",
            config
                + ":7:12: notifiers[0].type: unknown notifier type 'slak' (did you mean"
                + " 'slack'?); one of slack, log, webhook, alertmanager, grafana, pagerduty");
  }

  @Test
  void undefinedEnvironmentVariableIsAnError() throws IOException {
    write("alerts/.keep", "");
    Path config =
        write(
            "specwatch.yaml",
            """
        prometheus: {url: "http://${PROM_HOST}:9090"}
        policies: alerts
        """);
    assertThat(problems(() -> new ConfigLoader(k -> null).load(config)))
        .containsExactly(
            config + ":1:19: prometheus.url: environment variable PROM_HOST is not set");
    SpecwatchConfig ok = new ConfigLoader(Map.of("PROM_HOST", "prom")::get).load(config);
    assertThat(ok.prometheus().url().getHost()).isEqualTo("prom");
  }

  @Test
  void secretsComeFromFilesAndNeverAppearInErrorsOrToString() throws IOException {
    write("alerts/.keep", "");
    write("token", "tok-FROM-FILE-123\n");
    Path config =
        write(
            "specwatch.yaml",
            """
        prometheus:
          url: http://127.0.0.1:9090
          bearer_token_file: token
        notifiers:
          - {type: slack, token: "xoxb-planted-secret-1", channel: "#x"}
        policies: alerts
        """);
    SpecwatchConfig loaded = new ConfigLoader(k -> null).load(config);
    assertThat(loaded.prometheus().bearerToken().orElseThrow().reveal())
        .isEqualTo("tok-FROM-FILE-123");
    assertThat(loaded.toString())
        .doesNotContain("tok-FROM-FILE-123")
        .doesNotContain("xoxb-planted-secret-1");

    Path bad =
        write(
            "bad.yaml",
            """
        prometheus:
          url: "http://user:hunter2-secret@127.0.0.1:9090"
          bearer_token: 123
          basic_auth: {username: u, password: "pw-secret-777"}
        server: {listen: "nowhere", bearer_token: "srv-secret-888"}
        policies: alerts
        """);
    List<String> problems = problems(() -> new ConfigLoader(k -> null).load(bad));
    assertThat(problems).isNotEmpty();
    assertThat(String.join("\n", problems))
        .doesNotContain("hunter2-secret")
        .doesNotContain("pw-secret-777")
        .doesNotContain("srv-secret-888")
        .contains("prometheus.url: must not contain credentials")
        .contains("prometheus.basic_auth: set either bearer_token or basic_auth, not both");
  }

  @Test
  void shippedHaConfigValidates() throws IOException {
    // As the compose file mounts it: /etc/specwatch/specwatch-ha.yaml beside the policies.
    Path config = dir.resolve("specwatch-ha.yaml");
    Files.copy(Path.of("deploy/docker/specwatch-ha.yaml"), config);
    Files.createDirectories(dir.resolve("alerts"));
    try (var policies = Files.list(Path.of("alerts"))) {
      for (Path p : policies.filter(f -> f.toString().endsWith(".yaml")).toList()) {
        Files.copy(p, dir.resolve("alerts").resolve(p.getFileName()));
      }
    }
    SpecwatchConfig loaded =
        new ConfigLoader(
                Map.of(
                        "PROMETHEUS_URL", "http://prometheus:9090",
                        "GRAFANA_URL", "http://localhost:3000",
                        "SPECWATCH_DB_URL", "jdbc:postgresql://postgres:5432/specwatch",
                        "SPECWATCH_DB_PASSWORD", "pw")
                    ::get)
            .load(config);
    assertThat(loaded.database().orElseThrow().shards()).isEqualTo(4);
    assertThat(loaded.policies()).isNotEmpty();
  }

  @Test
  void slackGroupingIsOnByDefaultWithABotTokenAndEveryMistakeIsReported() throws IOException {
    write("alerts/.keep", "");
    Path config =
        write(
            "specwatch.yaml",
            """
        prometheus: {url: "http://127.0.0.1:9090"}
        policies: alerts
        notifiers:
          - {type: slack, token: xoxb-1, channel: "#a"}
          - {type: slack, name: quick, token: xoxb-1, channel: "#b", grouping: {group_wait: 5s}}
          - {type: slack, name: hook, webhook_url: "https://hooks.example.com/x"}
        """);
    List<NotifierConfig.Slack> slack =
        new ConfigLoader(k -> null)
            .load(config).notifiers().stream().map(NotifierConfig.Slack.class::cast).toList();
    assertThat(slack.get(0).grouping()).isEqualTo(NotifierConfig.Slack.Grouping.DEFAULT);
    assertThat(slack.get(1).grouping().groupWait()).isEqualTo(Duration.ofSeconds(5));
    assertThat(slack.get(1).grouping().groupInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(slack.get(2).grouping().enabled()).as("a webhook cannot edit").isFalse();

    Path bad =
        write(
            "bad.yaml",
            """
        prometheus: {url: "http://127.0.0.1:9090"}
        policies: alerts
        notifiers:
          - type: slack
            token: xoxb-1
            channel: "#a"
            grouping:
              group_wait: 1h
              group_interval: 0s
              threshold: 1
              group_by: [rule]
          - type: slack
            name: hook
            webhook_url: "https://hooks.example.com/x"
            grouping: {group_wait: 30s}
        """);
    assertThat(problems(() -> new ConfigLoader(k -> null).load(bad)))
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains("bad.yaml:8:")
                    .contains("notifiers[0].grouping.group_wait")
                    .contains("at most 10m"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains("bad.yaml:9:")
                    .contains("notifiers[0].grouping.group_interval")
                    .contains("at least 1s"))
        .anySatisfy(p -> assertThat(p).contains("notifiers[0].grouping.threshold"))
        .anySatisfy(
            p -> assertThat(p).contains("notifiers[0].grouping.group_by").contains("unknown key"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains("bad.yaml:15:")
                    .contains("notifiers[1].grouping.group_wait")
                    .contains("grouping needs token"));
  }

  @Test
  void statePostgresIsReadWithItsPasswordSecretAndEveryMistakeIsReported() throws IOException {
    write("alerts/.keep", "");
    Path config =
        write(
            "specwatch.yaml",
            """
        prometheus: {url: "http://127.0.0.1:9090"}
        policies: alerts
        state:
          backend: postgres
          url: jdbc:postgresql://db:5432/specwatch
          user: specwatch
          password: ${SPECWATCH_DB_PASSWORD}
        """);
    SpecwatchConfig ok =
        new ConfigLoader(Map.of("SPECWATCH_DB_PASSWORD", "db-secret-planted-1")::get).load(config);
    SpecwatchConfig.Database db = ok.database().orElseThrow();
    assertThat(ok.describeState()).startsWith("postgres jdbc:postgresql://db:5432/specwatch (");
    assertThat(db.url()).isEqualTo("jdbc:postgresql://db:5432/specwatch");
    assertThat(db.password().orElseThrow().reveal()).isEqualTo("db-secret-planted-1");
    assertThat(db.shards()).isEqualTo(SpecwatchConfig.Database.DEFAULT_SHARDS);
    assertThat(db.checkinInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(ok.toString()).doesNotContain("db-secret-planted-1");

    Path bad =
        write(
            "bad.yaml",
            """
        prometheus: {url: "http://127.0.0.1:9090"}
        policies: alerts
        state:
          backend: postgres
          dir: /var/lib/specwatch
          url: "mysql://db/specwatch?password=db-secret-planted-2"
          shards: 0
          checkin_interval: 100ms
        """);
    assertThat(problems(() -> new ConfigLoader(k -> null).load(bad)))
        .containsExactly(
            bad
                + ":5:3: state.dir: is a setting of backend: file (backend: postgres keeps no files)",
            bad
                + ":6:8: state.url: must be a PostgreSQL JDBC URL, e.g."
                + " jdbc:postgresql://127.0.0.1:5432/specwatch",
            bad + ":7:11: state.shards: must be between 1 and 256, got 0",
            bad + ":8:21: state.checkin_interval: must be at least 500ms");

    Path file =
        write(
            "file.yaml",
            """
        prometheus: {url: "http://127.0.0.1:9090"}
        policies: alerts
        state: {backend: files, password: x}
        """);
    assertThat(problems(() -> new ConfigLoader(k -> null).load(file)))
        .anySatisfy(p -> assertThat(p).contains("state.backend: must be file or postgres"));
    Path stray =
        write(
            "stray.yaml",
            """
        prometheus: {url: "http://127.0.0.1:9090"}
        policies: alerts
        state: {dir: /tmp/x, url: "jdbc:postgresql://db/x"}
        """);
    assertThat(problems(() -> new ConfigLoader(k -> null).load(stray)))
        .singleElement()
        .satisfies(p -> assertThat(p).contains("state.url: is a setting of backend: postgres"));
  }

  @Test
  void missingPolicyDirectoryAndMissingFileAreClear() throws IOException {
    Path config =
        write("specwatch.yaml", "prometheus: {url: http://localhost:9090}\n" + "policies: nope\n");
    assertThat(problems(() -> new ConfigLoader(k -> null).load(config)))
        .containsExactly(
            config
                + ":2:11: policies: directory "
                + dir.resolve("nope")
                + " does not exist (relative to the config file; create it, or write a policy per"
                + " model into it with `specwatch discover --config FILE --write "
                + dir.resolve("nope")
                + "`)");
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(dir.resolve("absent.yaml")))
        .hasMessageContaining("absent.yaml:1:1: file not found");
  }

  @Test
  void twoRecipesSelectingTheSameSeriesAreAnError() throws IOException {
    write("alerts/a.yaml", "recipe: a\nmatch: {model_name: m}\nnum_speculative_tokens: 1\n");
    write("alerts/b.yaml", "recipe: b\nmatch: {model_name: m}\nnum_speculative_tokens: 1\n");
    Path config =
        write(
            "specwatch.yaml", "prometheus: {url: http://localhost:9090}\n" + "policies: alerts\n");
    assertThat(problems(() -> new ConfigLoader(k -> null).load(config)))
        .singleElement()
        .asString()
        .contains("b.yaml:1:1: match: selects the same series as recipe 'a'");
  }
}
