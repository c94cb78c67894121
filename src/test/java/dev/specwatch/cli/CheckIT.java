package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.testing.Fleet;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * `specwatch check` against a real Prometheus scraping the simulator (it-fleet.yaml): every state,
 * two DP engines summed, SGLang, and a model name with quotes, a backslash and UTF-8.
 */
@ExtendWith(Fleet.Extension.class)
class CheckIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "planted-prometheus-token-4b1d";

  @TempDir Path dir;

  private Path config(String prometheusUrl) throws IOException {
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    policy(
        alerts,
        "healthy",
        "it/steady-mtp",
        3,
        "acceptance_rate: {below: 0.45}\n" + "  position_acceptance: {\"0\": {below: 0.6}}");
    policy(
        alerts,
        "regressed",
        "it/regressed",
        3,
        "acceptance_rate: {below: 0.45}\n" + "  mean_accepted_length: {below: 2.2}");
    policy(alerts, "idle", "it/goes-idle", 2, "acceptance_rate: {below: 0.45}");
    policy(alerts, "low", "it/low-traffic", 1, "acceptance_rate: {below: 0.99}");
    policy(alerts, "missing", "it/not-deployed", 1, "acceptance_rate: {below: 0.45}");
    policy(alerts, "weird", "it/we\\\"ird\\\\näme", 1, "acceptance_rate: {below: 0.45}");
    policy(alerts, "regexy", "it/re.ge*x+(1)|[a]{2}^$?", 1, "acceptance_rate: {below: 0.45}");
    policy(alerts, "vllm-old", "it/vllm-old", 3, "acceptance_rate: {below: 0.45}");
    Files.writeString(
        alerts.resolve("trtllm.yaml"),
        "recipe: trtllm\nengine: trtllm\nmatch: {job: vllm}\n"
            + "num_speculative_tokens: 3\nmin_drafts: 10\nthresholds:\n"
            + "  acceptance_rate: {below: 0.45}\n  position_acceptance: {\"0\": {below: 0.6}}\n",
        StandardCharsets.UTF_8);
    // A typo in the model name, and an SGLang model watched as vLLM: both read no_data, and say
    // why.
    policy(alerts, "typo", "it/steady-mpt", 3, "acceptance_rate: {below: 0.45}");
    policy(alerts, "wrong-engine", "it/sglang-eagle", 4, "acceptance_rate: {below: 0.45}");
    // Change detection on a recipe with minutes of history: no model, and check says why.
    Files.writeString(
        alerts.resolve("learning.yaml"),
        "recipe: learning\nmatch: {model_name: it/steady-mtp}\nnum_speculative_tokens: 3\n"
            + "thresholds: {change: {min_relative_drop: 0.1}}\n",
        StandardCharsets.UTF_8);
    for (String[] sglang :
        List.of(
            new String[] {"sglang", "it/sglang-eagle"},
            new String[] {"sglang-dp", "it/sglang-dp"},
            new String[] {"sglang-old", "it/sglang-old"})) {
      Files.writeString(
          alerts.resolve(sglang[0] + ".yaml"),
          "recipe: "
              + sglang[0]
              + "\nengine: sglang\nmatch: {job: vllm, model_name: "
              + sglang[1]
              + "}\nnum_speculative_tokens: 4\nmin_drafts: 10\nthresholds:\n"
              + "  acceptance_rate: {below: 0.45}\n  mean_accepted_length: {below: 2.5}\n",
          StandardCharsets.UTF_8);
    }
    Path file = dir.resolve("specwatch.yaml");
    Files.writeString(
        file,
        "prometheus:\n  url: "
            + prometheusUrl
            + "\n"
            + "  bearer_token: "
            + TOKEN
            + "\n  max_retries: 0\n  timeout: 2s\n"
            + "evaluation: {window: 30s}\npolicies: alerts\n",
        StandardCharsets.UTF_8);
    return file;
  }

  private static void policy(Path alerts, String name, String model, int k, String thresholds)
      throws IOException {
    Files.writeString(
        alerts.resolve(name + ".yaml"),
        "recipe: "
            + name
            + "\n"
            + "match: {job: vllm, model_name: \""
            + model
            + "\"}\n"
            + "num_speculative_tokens: "
            + k
            + "\n"
            + "min_drafts: "
            + (name.equals("low") ? 1000 : 10)
            + "\n"
            + "thresholds:\n  "
            + thresholds
            + "\n",
        StandardCharsets.UTF_8);
  }

  @Test
  void reportsEveryStateAgainstARealPrometheus(Fleet fleet) throws IOException {
    Path config = config(fleet.prometheus().baseUri().toString());
    // The idle model is active 15 s of every 165 s; with a 30 s window it reads idle from about
    // 35 s after it stops. Every assertion reads the one evaluation in which it was idle.
    AtomicReference<MainTest.Result> idleSeen = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(200))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              MainTest.Result run =
                  MainTest.run("check", "--config", config.toString(), "--output", "json");
              Map<String, JsonNode> r = recipes(run.out());
              assertThat(r.get("idle").path("state").asText()).isEqualTo("idle");
              assertThat(r.get("healthy").path("state").asText()).isEqualTo("ok");
              assertThat(r.get("sglang").path("state").asText()).isEqualTo("ok");
              assertThat(r.get("sglang-dp").path("state").asText()).isEqualTo("ok");
              assertThat(r.get("sglang-old").path("state").asText()).isEqualTo("ok");
              assertThat(r.get("vllm-old").path("state").asText()).isEqualTo("ok");
              assertThat(r.get("trtllm").path("state").asText()).isEqualTo("ok");
              assertThat(r.get("weird").path("state").asText()).isEqualTo("ok");
              assertThat(r.get("regexy").path("state").asText()).isEqualTo("ok");
              idleSeen.set(run);
            });

    MainTest.Result result = idleSeen.get();
    assertThat(result.exit()).as("a breached threshold exits 1").isEqualTo(1);
    JsonNode root = JSON.readTree(result.out());
    assertThat(root.path("window").asText()).isEqualTo("30s");
    Map<String, JsonNode> r = recipes(result.out());

    JsonNode healthy = r.get("healthy").path("signals");
    assertThat(healthy.path("acceptance_rate").asDouble()).isCloseTo(0.7, within(0.005));
    assertThat(healthy.path("mean_accepted_length").asDouble()).isCloseTo(3.1, within(0.01));
    assertThat(healthy.path("position_acceptance"))
        .extracting(JsonNode::asDouble)
        .satisfiesExactly(
            a -> assertThat(a).isCloseTo(0.9, within(0.005)),
            a -> assertThat(a).isCloseTo(0.7, within(0.005)),
            a -> assertThat(a).isCloseTo(0.5, within(0.005)));
    // Two data-parallel engines summed: the whole model's 1024 generation tokens/s.
    assertThat(healthy.path("generation_tokens_per_second").asDouble())
        .isCloseTo(1024, within(1024 * 0.05));

    JsonNode regressed = r.get("regressed");
    assertThat(regressed.path("state").asText()).isEqualTo("breach");
    assertThat(regressed.path("breaches"))
        .extracting(b -> b.path("rule").asText())
        .containsExactly("acceptance_rate", "mean_accepted_length");
    assertThat(regressed.path("breaches").get(0).path("value").asDouble())
        .isCloseTo(0.3, within(0.005));
    assertThat(regressed.path("breaches").get(0).path("threshold").asDouble()).isEqualTo(0.45);

    JsonNode idle = r.get("idle").path("signals");
    assertThat(idle.path("acceptance_rate").isNull()).as("idle is null, never NaN").isTrue();
    assertThat(idle.path("mean_accepted_length").isNull()).isTrue();
    assertThat(idle.path("draft_tokens_per_second").asDouble()).isEqualTo(0.0);
    assertThat(idle.path("drafts_in_window").asDouble()).isEqualTo(0.0);

    assertThat(r.get("low").path("state").asText()).isEqualTo("low_traffic");
    assertThat(r.get("missing").path("state").asText()).isEqualTo("no_data");
    assertThat(r.get("missing").path("signals").path("acceptance_rate").isNull()).isTrue();
    assertThat(r.get("missing").path("no_data_hint").asText())
        .startsWith(
            "model_name=\"it/not-deployed\" selects no series of vllm:generation_tokens_total");
    assertThat(r.get("typo").path("state").asText()).isEqualTo("no_data");
    assertThat(r.get("typo").path("no_data_hint").asText())
        .isEqualTo(
            "model_name=\"it/steady-mpt\" selects no series of vllm:generation_tokens_total"
                + " (did you mean model_name=\"it/steady-mtp\"?)");
    assertThat(r.get("wrong-engine").path("no_data_hint").asText())
        .isEqualTo(
            "the match finds sglang:generation_tokens_total: set engine: sglang in the policy");
    assertThat(r.get("healthy").has("no_data_hint")).as("only for no_data").isFalse();

    // vLLM without num_drafts: acceptance exact, the length 1 + k x acceptance, drafts = draft
    // tokens / k (values derived in it-fleet.yaml); positions not exported.
    JsonNode oldVllm = r.get("vllm-old").path("signals");
    assertThat(oldVllm.path("acceptance_rate").asDouble()).isCloseTo(0.8, within(0.005));
    assertThat(oldVllm.path("mean_accepted_length").asDouble()).isCloseTo(3.4, within(0.015));
    assertThat(oldVllm.path("drafts_in_window").asDouble())
        .isCloseTo(512 / 3.4 * 30, within(512 / 3.4 * 30 * 0.05));
    assertThat(oldVllm.path("position_acceptance")).hasSize(3).allMatch(JsonNode::isNull);

    // TensorRT-LLM: acceptance from its iteration counters, positions from the per-position ones
    // (accepted at i / drafted at position 0), drafts = draft tokens / k.
    JsonNode trt = r.get("trtllm").path("signals");
    assertThat(trt.path("acceptance_rate").asDouble()).isCloseTo(0.8, within(0.005));
    assertThat(trt.path("mean_accepted_length").asDouble()).isCloseTo(3.4, within(0.015));
    assertThat(trt.path("position_acceptance"))
        .extracting(JsonNode::asDouble)
        .satisfiesExactly(
            a -> assertThat(a).isCloseTo(0.9, within(0.005)),
            a -> assertThat(a).isCloseTo(0.8, within(0.005)),
            a -> assertThat(a).isCloseTo(0.7, within(0.005)));
    assertThat(trt.path("drafts_in_window").asDouble())
        .isCloseTo(512 / 3.4 * 30, within(512 / 3.4 * 30 * 0.05));
    assertThat(trt.path("generation_tokens_per_second").asDouble())
        .isCloseTo(512, within(512 * 0.05));

    // SGLang, values derived by hand in it-fleet.yaml. With the verify counter (one scheduler, and
    // two under DP attention) the accepted length is generation tokens / verify calls: exact but
    // for the counters' whole-token floors.
    for (String name : List.of("sglang", "sglang-dp")) {
      JsonNode sglang = r.get(name).path("signals");
      assertThat(sglang.path("mean_accepted_length").asDouble())
          .as(name)
          .isCloseTo(3.0, within(0.01));
      assertThat(sglang.path("acceptance_rate").asDouble()).as(name).isCloseTo(0.5, within(0.005));
      assertThat(sglang.path("generation_tokens_per_second").asDouble())
          .isCloseTo(512, within(512 * 0.05));
      assertThat(sglang.path("drafts_in_window").asDouble())
          .as("verify calls in the 30 s window")
          .isCloseTo(512 / 3.0 * 30, within(512 / 3.0 * 30 * 0.05));
      assertThat(sglang.path("draft_tokens_per_second").asDouble())
          .isCloseTo(4 * 512 / 3.0, within(4 * 512 / 3.0 * 0.05));
      assertThat(sglang.path("accepted_tokens_per_second").asDouble())
          .isCloseTo(512 * 2 / 3.0, within(512 * 2 / 3.0 * 0.05));
      assertThat(sglang.path("position_acceptance")).hasSize(4).allMatch(JsonNode::isNull);
    }
    // Without the counter: the gauge, weighted by each DP rank's running requests (equal here).
    JsonNode old = r.get("sglang-old").path("signals");
    assertThat(old.path("mean_accepted_length").asDouble()).isCloseTo(3.0, within(1e-9));
    assertThat(old.path("acceptance_rate").asDouble()).isCloseTo(0.5, within(1e-9));
    assertThat(old.path("drafts_in_window").asDouble())
        .as("generation tokens / the gauge's accepted length")
        .isCloseTo(512 / 3.0 * 30, within(512 / 3.0 * 30 * 0.05));

    assertThat(r.get("weird").path("signals").path("acceptance_rate").asDouble())
        .isCloseTo(0.9, within(0.005));
    assertThat(r.get("learning").path("detection").path("status").asText())
        .startsWith("learning: ")
        .endsWith("of active history, needs 24h");
    assertThat(r.get("healthy").has("detection")).as("only recipes that learn").isFalse();
    // Quotes, backslashes, UTF-8 and regex metacharacters came back through RE2 unchanged.
    assertThat(r.get("regexy").path("signals").path("acceptance_rate").asDouble())
        .isCloseTo(0.6, within(0.005));
    assertThat(result.out() + result.err()).doesNotContain(TOKEN);
  }

  @Test
  void textOutputIsATable(Fleet fleet) throws IOException {
    Path config = config(fleet.prometheus().baseUri().toString());
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () ->
                assertThat(MainTest.run("check", "--config", config.toString()).out())
                    .containsPattern(
                        "(?m)^healthy +vllm +ok +0\\.7\\d\\d +3\\.1\\d +0\\.9\\d 0\\.7\\d 0\\.5\\d")
                    .containsPattern(
                        "(?m)^regressed +vllm +breach .*acceptance_rate 0\\.3\\d\\d<0\\.450"));
  }

  @Test
  void evaluatesInThePast(Fleet fleet) throws IOException {
    Path config = config(fleet.prometheus().baseUri().toString());
    MainTest.Result result =
        MainTest.run(
            "check",
            "--config",
            config.toString(),
            "--output",
            "json",
            "--time",
            "2020-01-01T00:00:00Z");
    // Nothing can alert on no data: a typo or a deployment that is down must not pass a CI step.
    assertThat(result.exit()).as("recipes without data exit 4").isEqualTo(4);
    assertThat(result.err())
        .contains("recipe(s) read no data and cannot alert")
        .contains("--allow-no-data");
    JsonNode root = JSON.readTree(result.out());
    assertThat(root.path("evaluated_at").asText()).isEqualTo("2020-01-01T00:00:00Z");
    assertThat(recipes(result.out()).values())
        .allSatisfy(r -> assertThat(r.path("state").asText()).isEqualTo("no_data"));
    MainTest.Result allowed =
        MainTest.run(
            "check",
            "--config",
            config.toString(),
            "--time",
            "2020-01-01T00:00:00Z",
            "--allow-no-data");
    assertThat(allowed.exit()).as("--allow-no-data keeps the old behaviour").isZero();
  }

  @Test
  void unreachablePrometheusExits3WithAClearErrorAndNoSecret() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path config = config("http://127.0.0.1:" + port);
    MainTest.Result result = MainTest.run("check", "--config", config.toString());
    assertThat(result.exit()).isEqualTo(3);
    assertThat(result.err())
        .contains("http://127.0.0.1:" + port + "/api/v1/query: connection" + " refused");
    assertThat(result.out()).contains("error");
    assertThat(result.out() + result.err()).doesNotContain(TOKEN);
  }

  private static Map<String, JsonNode> recipes(String json) throws IOException {
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode r : JSON.readTree(json).path("recipes")) {
      out.put(r.path("name").asText(), r);
    }
    return out;
  }

  @Test
  void digestDryRunNeedsNoDigestSection(Fleet fleet, @TempDir Path out) throws IOException {
    Path config = config(fleet.prometheus().baseUri().toString());
    assertThat(Files.readString(config)).doesNotContain("digest:");
    MainTest.Result r =
        MainTest.run("digest", "--config", config.toString(), "--dry-run", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(out.resolve("digest.html")).exists();
    String text = Files.readString(out.resolve("digest.txt"));
    assertThat(text).contains("healthy");
    // A preview is of the week so far, which holds the fleet's data; before, the last complete
    // week, where every recipe of a deployment watched since this morning read NO DATA.
    assertThat(text).contains("The week is not over: figures cover it up to now.");
    String healthy = text.substring(text.indexOf("== healthy "));
    healthy =
        healthy.substring(
            0, healthy.indexOf("\n== ") < 0 ? healthy.length() : healthy.indexOf("\n== "));
    assertThat(healthy).doesNotContain("NO DATA").containsPattern("acceptance rate +[0-9]");
    // TensorRT-LLM's drafts are counted through its profile: before, its acceptance stood beside
    // "draft tokens –" and an advisor line of "0 drafts".
    String trt = text.substring(text.indexOf("== trtllm "));
    trt = trt.substring(0, trt.indexOf("\n== ") < 0 ? trt.length() : trt.indexOf("\n== "));
    assertThat(trt)
        .containsPattern("draft tokens +[0-9.]+[kM]?: accepted [0-9.]+[kM]?, wasted")
        .doesNotContain(" 0 drafts");
  }

  @Test
  void aWindowNotYetFullIsSaid(Fleet fleet) throws IOException {
    // The fleet has run for minutes, not a day: a one-day window holds minutes of data, and its
    // rates read low until it fills. Before, nothing said so.
    Path config = config(fleet.prometheus().baseUri().toString());
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              MainTest.Result r =
                  MainTest.run(
                      "check", "--config", config.toString(), "--window", "1d", "--output", "json");
              JsonNode healthy = null;
              for (JsonNode recipe : JSON.readTree(r.out()).path("recipes")) {
                if (recipe.path("name").asText().equals("healthy")) {
                  healthy = recipe;
                }
              }
              assertThat(healthy.path("state").asText()).isEqualTo("ok");
              JsonNode window = healthy.path("window");
              assertThat(window.path("full").asBoolean(true)).isFalse();
              assertThat(window.path("covered_seconds").asLong()).isBetween(1L, 86_400L * 9 / 10);
              assertThat(window.path("note").asText())
                  .startsWith("window not full: ")
                  .endsWith(" of data so far; rates read low until it fills");
            });
    MainTest.Result text = MainTest.run("check", "--config", config.toString(), "--window", "1d");
    assertThat(text.out())
        .containsPattern(
            "(?m)^healthy: window not full: \\S+ of data so far; rates read low until it fills"
                + " \\(the 1d window\\)$");
  }
}
