package dev.specwatch.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.cli.CliRunner;
import dev.specwatch.testing.HistoryGenerator;
import dev.specwatch.testing.PrometheusServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `policies suggest` against a real Prometheus holding two generated days of a recipe's history
 * (healthy acceptance about 0.62 with day/night swing and wander, no per-position counters): the
 * proposed line sits under the history, the replay over the same days raises nothing, `--write`
 * puts it in the policy, and a recipe with an hour of history gets "not enough data" instead of a
 * number.
 */
class SuggestIT {
  static final Duration SCRAPE = Duration.ofSeconds(15);
  static final HistoryGenerator.Profile STEADY = HistoryGenerator.thin("steady");

  @TempDir Path dir;

  @Test
  void proposesLinesUnderTheHistoryThatWouldHaveStayedQuiet() throws Exception {
    // Two whole days ending at a UTC midnight, and suggest told to end its window there: the
    // history and what is asked of it are the same at any hour the suite runs.
    Instant to = HistoryGenerator.lastMidnight(Instant.now());
    List<Path> history =
        HistoryGenerator.writeDaily(
            dir,
            List.of(
                new HistoryGenerator.Model(
                    "it/suggest", STEADY, null, to.minus(Duration.ofDays(2)), to, 7),
                new HistoryGenerator.Model(
                    "it/young", STEADY, null, to.minus(Duration.ofHours(1)), to, 8)),
            SCRAPE);
    try (PrometheusServer prometheus =
        PrometheusServer.builder().scrapeInterval(SCRAPE).historyFiles(history).start()) {
      Files.createDirectories(dir.resolve("alerts"));
      Path policy = dir.resolve("alerts/suggest.yaml");
      Files.writeString(
          policy,
          "recipe: suggest\nmatch: {model_name: it/suggest}\nnum_speculative_tokens: 3\n"
              + "min_drafts: 10\nthresholds:\n  change: {min_relative_drop: 0.10}\n");
      Files.writeString(
          dir.resolve("alerts/young.yaml"),
          "recipe: young\nmatch: {model_name: it/young}\nnum_speculative_tokens: 3\n");
      Path config = dir.resolve("specwatch.yaml");
      Files.writeString(
          config,
          "prometheus: {url: \"" + prometheus.baseUri() + "\", timeout: 60s}\npolicies: alerts\n");

      CliRunner.Result r =
          CliRunner.run(
              "policies",
              "suggest",
              "--config",
              config.toString(),
              "--recipe",
              "suggest",
              "--window",
              "2d",
              "--time",
              to.toString(),
              "--write");

      assertThat(r.exit()).as(r.out() + r.err()).isZero();
      Matcher below =
          Pattern.compile("acceptance_rate: \\{below: (0\\.\\d+), clear_above: (0\\.\\d+)}")
              .matcher(r.out());
      assertThat(below.find()).as(r.out()).isTrue();
      double line = Double.parseDouble(below.group(1));
      assertThat(line).isBetween(0.40, 0.60);
      assertThat(Double.parseDouble(below.group(2))).isGreaterThan(line).isLessThan(0.62);
      assertThat(r.out())
          .contains("hours with drafts")
          .contains("): 0 alert(s) would have fired")
          .as("the kept change rule is counted apart, not under the suggested lines")
          .contains("the policy's other rules, kept as they are (change): ")
          .as("the generated history has no per-position counters: nothing is made up")
          .doesNotContain("position_acceptance:")
          .contains("wrote the thresholds into " + policy);
      assertThat(Files.readString(policy))
          .contains("acceptance_rate: {below: " + below.group(1))
          .contains("  change: {min_relative_drop: 0.10}");
      assertThat(CliRunner.run("validate", "--config", config.toString()).exit()).isZero();

      CliRunner.Result young =
          CliRunner.run(
              "policies",
              "suggest",
              "--config",
              config.toString(),
              "--recipe",
              "young",
              "--window",
              "2d",
              "--time",
              to.toString());
      assertThat(young.out()).contains("not enough data").doesNotContain("below:");
    }
  }
}
