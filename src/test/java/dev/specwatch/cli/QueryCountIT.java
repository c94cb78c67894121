package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.Fleet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code check} costs the datasource, counted by the real Prometheus itself (its own {@code
 * prometheus_http_requests_total} for the query API, read from its /metrics): the same number of
 * queries for 6 and 600 recipes, with none or 200 of them without data. Before, the no-data
 * diagnosis ran up to seven queries per recipe without data (6 recipes: 46 queries; 60 more without
 * data: 406).
 */
@ExtendWith(Fleet.Extension.class)
class QueryCountIT {
  private static final List<String> MODELS =
      List.of(
          "it/steady-mtp", "it/regressed", "it/low-traffic", "it/vllm-old", "it/we\\\"ird\\\\näme");

  @TempDir Path dir;

  /** A config with {@code withData} recipes over the fleet's models and {@code without} more. */
  private Path config(Fleet fleet, String name, int withData, int without) throws IOException {
    return config(fleet, name, withData, without, i -> MODELS.get(i % MODELS.size()));
  }

  private Path config(
      Fleet fleet, String name, int withData, int without, IntFunction<String> model)
      throws IOException {
    Path alerts = Files.createDirectories(dir.resolve(name + "/alerts"));
    for (int i = 0; i < withData; i++) {
      policy(alerts, "r" + i, model.apply(i));
    }
    for (int i = 0; i < without; i++) {
      policy(alerts, "absent" + i, "it/absent-" + i);
    }
    Path file = dir.resolve(name + "/specwatch.yaml");
    Files.writeString(
        file,
        "prometheus: {url: \""
            + fleet.prometheus().baseUri()
            + "\"}\nevaluation: {window: 30s}\npolicies: alerts\n",
        StandardCharsets.UTF_8);
    return file;
  }

  private static void policy(Path alerts, String name, String model) throws IOException {
    Files.writeString(
        alerts.resolve(name + ".yaml"),
        "recipe: "
            + name
            + "\nmatch: {job: vllm, model_name: \""
            + model
            + "\"}\nnum_speculative_tokens: 3\nmin_drafts: 10\n"
            + "thresholds:\n  acceptance_rate: {below: 0.45}\n",
        StandardCharsets.UTF_8);
  }

  /** Requests Prometheus has answered on its query API so far, from its own counters. */
  private static long queries(Fleet fleet) throws Exception {
    return fleet.prometheus().apiRequests();
  }

  @Test
  void checkSendsAsManyQueriesForSixHundredRecipesAsForSixWithOrWithoutData(Fleet fleet)
      throws Exception {
    // The fleet's series scraped and the window full: every recipe with data reads ok.
    Path first = config(fleet, "warm", MODELS.size(), 0);
    awaitWarm(first, lines -> lines.anyMatch(l -> l.matches("r0\\s+vllm\\s+ok\\s.*")));
    Map<String, Long> sent = new LinkedHashMap<>();
    for (int[] shape : new int[][] {{5, 0}, {5, 200}, {5, 595}}) {
      String name = shape[0] + "+" + shape[1];
      Path config = config(fleet, name, shape[0], shape[1]);
      long before = queries(fleet);
      MainTest.Result r = MainTest.run("check", "--config", config.toString());
      long after = queries(fleet);
      sent.put(shape[0] + " with data, " + shape[1] + " without", after - before);
      if (shape[1] > 0) {
        assertThat(r.out())
            .as("the hint is still given")
            .contains("selects no series of vllm:generation_tokens_total");
      }
    }
    System.out.println("check's queries: " + sent);
    long all = sent.get("5 with data, 0 without");
    assertThat(sent.get("5 with data, 200 without"))
        .as("the no-data diagnosis of 200 recipes is one query: " + sent)
        .isEqualTo(all + 1);
    assertThat(sent.get("5 with data, 595 without")).as(sent.toString()).isEqualTo(all + 1);
  }

  /**
   * With data for every recipe too: 600 recipes over 600 models cost what 6 do, and 200 of them
   * without data add the one query of the no-data diagnosis. A fleet of its own: 600 vLLM models in
   * the simulator, scraped by one real Prometheus.
   */
  @Test
  void sixHundredRecipesWithDataCostWhatSixDo() throws Exception {
    StringBuilder scenario = new StringBuilder("name: six-hundred\nmodels:\n");
    for (int i = 0; i < 600; i++) {
      scenario
          .append("  - model_name: many/m")
          .append(i)
          .append("\n    num_speculative_tokens: 3\n    phases:\n      - name: steady\n")
          .append("        requests_per_second: 1\n        position_acceptance: [0.9, 0.7, 0.5]\n");
    }
    Path file = dir.resolve("six-hundred.yaml");
    Files.writeString(file, scenario, StandardCharsets.UTF_8);
    try (Fleet fleet = Fleet.startFile(file)) {
      IntFunction<String> model = i -> "many/m" + i;
      Path first = config(fleet, "warm", 600, 0, model);
      awaitWarm(
          first, lines -> lines.filter(l -> l.matches("r\\d+\\s+vllm\\s+ok\\s.*")).count() == 600);
      Map<String, Long> sent = new LinkedHashMap<>();
      for (int[] shape : new int[][] {{6, 0}, {600, 0}, {6, 200}, {400, 200}}) {
        Path config = config(fleet, shape[0] + "+" + shape[1], shape[0], shape[1], model);
        long before = queries(fleet);
        MainTest.Result r = MainTest.run("check", "--config", config.toString());
        long after = queries(fleet);
        sent.put(shape[0] + " with data, " + shape[1] + " without", after - before);
        assertThat(r.out().lines().filter(l -> l.matches("r\\d+\\s+vllm\\s+ok\\s.*")).count())
            .as("every recipe with data reads ok")
            .isEqualTo(shape[0]);
      }
      System.out.println("check's queries, 600 models: " + sent);
      long six = sent.get("6 with data, 0 without");
      assertThat(sent.get("600 with data, 0 without")).as(sent.toString()).isEqualTo(six);
      assertThat(sent.get("6 with data, 200 without")).as(sent.toString()).isEqualTo(six + 1);
      assertThat(sent.get("400 with data, 200 without")).as(sent.toString()).isEqualTo(six + 1);
    }
  }

  /**
   * Waits until {@code check} on {@code config} prints what {@code ready} looks for and no window
   * is still filling: the series scraped and every rate window full.
   */
  private static void awaitWarm(
      Path config, java.util.function.Predicate<java.util.stream.Stream<String>> ready) {
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(120))
        .pollInterval(java.time.Duration.ofSeconds(2))
        .until(
            () -> {
              MainTest.Result w = MainTest.run("check", "--config", config.toString());
              String out = w.out() + w.err();
              return ready.test(out.lines()) && !out.contains("window not full");
            });
  }
}
