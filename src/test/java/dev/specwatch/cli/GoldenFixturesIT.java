package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.model.LabelMatcher;
import dev.specwatch.signals.ActiveK;
import dev.specwatch.signals.QueryScope;
import dev.specwatch.signals.SglangProfile;
import dev.specwatch.signals.VllmProfile;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.FixtureServer;
import dev.specwatch.testing.PromApi;
import dev.specwatch.testing.PrometheusServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code specwatch check} and {@code replay} against a real Prometheus scraping the golden engine
 * expositions ({@code src/test/resources/engines/}, written from each engine's source; docs/
 * ENGINES.md), one scrape job per fixture. Every expected figure below is derived by hand from the
 * fixture file: its counter values are per-second rates (FixtureServer).
 */
class GoldenFixturesIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /**
   * A policy matching its fixture's job alone: trtllm-serve labels every series
   * model_name="undefined", so its servers are told apart by job.
   */
  private static void jobPolicy(
      Path alerts, String fixture, String engine, int k, String thresholds) throws IOException {
    policy(alerts, fixture, engine, null, k, thresholds);
  }

  /** A policy on its fixture's job and, unless null, the model's name. */
  private static void policy(
      Path alerts, String fixture, String engine, String model, int k, String thresholds)
      throws IOException {
    Files.writeString(
        alerts.resolve(fixture + ".yaml"),
        "recipe: "
            + fixture
            + "\nengine: "
            + engine
            + "\nmatch: {job: "
            + fixture
            + (model == null ? "" : ", model_name: \"" + model + "\"")
            + "}\nnum_speculative_tokens: "
            + k
            + "\nmin_drafts: 10\nfor: 0s\nthresholds:\n"
            + thresholds
            + "\n",
        StandardCharsets.UTF_8);
  }

  @Test
  void everyEngineShapeReadsAsItsSourceSays() throws Exception {
    try (FixtureServer fixtures = FixtureServer.start();
        PrometheusServer prometheus = prometheus(fixtures)) {
      Path alerts = Files.createDirectories(dir.resolve("alerts"));
      String pos0 = "  position_acceptance: {\"0\": {below: 0.5}}";
      policy(
          alerts,
          "vllm-v1-dp2",
          "vllm",
          "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8",
          3,
          "  acceptance_rate: {below: 0.5}\n" + pos0);
      policy(
          alerts,
          "vllm-v1-token-counters-only",
          "vllm",
          "meta-llama/Llama-3.1-70B-Instruct",
          3,
          "  acceptance_rate: {below: 0.5}");
      // Drafts of 3 tokens on average under a k of 5 (a draft-length policy, dynamic speculation).
      policy(
          alerts,
          "vllm-dynamic-draft-length",
          "vllm",
          "zai-org/GLM-4.5-Air",
          5,
          "  acceptance_rate: {below: 0.5}\n" + pos0);
      policy(
          alerts,
          "sglang-verify-calls",
          "sglang",
          "deepseek-ai/DeepSeek-V3",
          4,
          "  mean_accepted_length: {below: 2.0}");
      policy(
          alerts,
          "sglang-dp-attention",
          "sglang",
          "deepseek-ai/DeepSeek-V3.2-Exp",
          4,
          "  mean_accepted_length: {below: 2.0}");
      // The one that breaches: acceptance 0.4375 against a line at 0.45.
      policy(
          alerts,
          "sglang-gauges-only",
          "sglang",
          "Qwen/Qwen3-235B-A22B-Instruct-2507",
          4,
          "  acceptance_rate: {below: 0.45}");
      jobPolicy(alerts, "trtllm", "trtllm", 3, "  acceptance_rate: {below: 0.5}\n" + pos0);
      // k as SGLang counts it is speculative_num_draft_tokens 6 - 1 (a tree: 3 steps, top-k 4);
      // the policy holds the steps (3), the mistake the docs once taught: the gauge wins, and
      // check says so.
      policy(
          alerts,
          "sglang-active-k",
          "sglang",
          "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8",
          3,
          "  acceptance_rate: {below: 0.3}");
      // Adaptive: the active draft tokens move between 6 and 4 from scrape to scrape; the policy
      // holds the highest k.
      policy(
          alerts,
          "sglang-adaptive-k",
          "sglang",
          "deepseek-ai/DeepSeek-V3.1-Terminus",
          5,
          "  acceptance_rate: {below: 0.3}");
      jobPolicy(
          alerts, "trtllm-iteration-stats-only", "trtllm", 3, "  acceptance_rate: {below: 0.5}");
      jobPolicy(
          alerts, "trtllm-positions-only", "trtllm", 3, "  acceptance_rate: {below: 0.5}\n" + pos0);
      // vLLM behind Ray Serve LLM: vLLM's names under ray_vllm_, selected like vLLM.
      policy(
          alerts,
          "ray_vllm",
          "ray_vllm",
          "meta-llama/Llama-3.3-70B-Instruct",
          3,
          "  acceptance_rate: {below: 0.5}\n" + pos0);
      // llama.cpp labels nothing: its server is its model, selected by job alone.
      Files.writeString(
          alerts.resolve("llamacpp.yaml"),
          "recipe: llamacpp\nengine: llamacpp\nmatch: {job: llamacpp}\nnum_speculative_tokens: 4\n"
              + "min_drafts: 10\nfor: 0s\nthresholds:\n  acceptance_rate: {below: 0.5}\n"
              + pos0
              + "\n",
          StandardCharsets.UTF_8);
      Path config = dir.resolve("specwatch.yaml");
      Files.writeString(
          config,
          "prometheus:\n  url: "
              + prometheus.baseUri()
              + "\n  max_retries: 0\n  timeout: 5s\nevaluation: {window: 30s, interval: 5s}\n"
              + "policies: alerts\n",
          StandardCharsets.UTF_8);

      // A 30 s window is full 31 s after the first scrape; until then recipes read no_data. Each
      // fixture is a job of its own, whose first scrape Prometheus places anywhere in the 1 s
      // interval: a series younger than the window reads short (rate() extrapolates half an
      // interval, not to the window's start), by up to 3 % on a job first scraped a second after
      // another. So check runs only once every job has a sample older than the window.
      PromApi promApi = new PromApi(prometheus.baseUri());
      AtomicReference<MainTest.Result> full = new AtomicReference<>();
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofSeconds(2))
          .untilAsserted(
              () -> {
                assertThat(promApi.scalar("count(up offset 32s)"))
                    .isEqualTo(FixtureServer.FIXTURES.size());
                MainTest.Result run =
                    MainTest.run("check", "--config", config.toString(), "--output", "json");
                Map<String, JsonNode> r = recipes(run.out());
                assertThat(r).as(run.err()).hasSize(WATCHED.size());
                // The window is full once it holds 30 s of scrapes: 2 x 100 drafts a second. To
                // 1 %: at 2 % the first poll could catch a window 98 % full, where the 2 % checks
                // of the other engines' rates below read just outside.
                assertThat(r.get("vllm-v1-dp2").path("signals").path("drafts_in_window").asDouble())
                    .isCloseTo(6000, within(6000 * 0.01));
                assertThat(r.values()).allSatisfy(x -> assertThat(x.has("window")).isFalse());
                full.set(run);
              });
      MainTest.Result run = full.get();
      assertThat(run.exit()).as("one recipe breaches").isEqualTo(1);
      Map<String, JsonNode> r = recipes(run.out());
      assertThat(r)
          .allSatisfy(
              (name, recipe) ->
                  assertThat(recipe.path("state").asText())
                      .as(name)
                      .isEqualTo(name.equals("sglang-gauges-only") ? "breach" : "ok"));

      // vLLM V1, two engines summed: 2 x 210 accepted / 2 x 300 drafted = 0.7; 1 + 420 / 200 =
      // 3.1; positions 90, 70, 50 of 100 drafts; 2 x 310 generation tokens/s.
      JsonNode vllm = r.get("vllm-v1-dp2").path("signals");
      assertFigures(vllm, 0.7, 3.1, 620, 6000, 0.9, 0.7, 0.5);

      // vLLM before num_drafts: 240 / 300 = 0.8, 1 + 3 x 0.8 = 3.4, 300 / 3 = 100 drafts/s;
      // positions not exported.
      JsonNode old = r.get("vllm-v1-token-counters-only").path("signals");
      assertThat(old.path("acceptance_rate").asDouble()).isCloseTo(0.8, within(1e-6));
      assertThat(old.path("mean_accepted_length").asDouble()).isCloseTo(3.4, within(1e-6));
      assertThat(old.path("drafts_in_window").asDouble()).isCloseTo(3000, within(3000 * 0.05));
      assertThat(old.path("position_acceptance")).hasSize(3).allMatch(JsonNode::isNull);

      // SGLang with the verify counter: 600 / 200 = 3.0 exactly (the gauge says 2.9 and is not
      // read), (3.0 - 1) / 4 = 0.5.
      JsonNode sglang = r.get("sglang-verify-calls").path("signals");
      assertThat(sglang.path("mean_accepted_length").asDouble()).isCloseTo(3.0, within(1e-6));
      assertThat(sglang.path("acceptance_rate").asDouble()).isCloseTo(0.5, within(1e-6));
      assertThat(sglang.path("drafts_in_window").asDouble()).isCloseTo(6000, within(6000 * 0.05));
      // Under DP attention one tokenizer counts both ranks: 900 / 250 = 3.6, 2.6 / 4 = 0.65.
      JsonNode dp = r.get("sglang-dp-attention").path("signals");
      assertThat(dp.path("mean_accepted_length").asDouble()).isCloseTo(3.6, within(1e-6));
      assertThat(dp.path("acceptance_rate").asDouble()).isCloseTo(0.65, within(1e-6));
      // Gauges only: the ranks' lengths 3.0 and 2.0 weighted by 12 and 4 running requests:
      // (36 + 8) / 16 = 2.75, (2.75 - 1) / 4 = 0.4375; drafts = 800 / 2.75 a second.
      JsonNode gauges = r.get("sglang-gauges-only").path("signals");
      assertThat(gauges.path("mean_accepted_length").asDouble()).isCloseTo(2.75, within(1e-6));
      assertThat(gauges.path("acceptance_rate").asDouble()).isCloseTo(0.4375, within(1e-6));
      assertThat(gauges.path("drafts_in_window").asDouble())
          .isCloseTo(800 / 2.75 * 30, within(800 / 2.75 * 30 * 0.05));

      // SGLang as of sglang@016d8605: the token counters split by is_streaming (400 + 300) are
      // summed; acceptance equals SGLang's own (metrics_reporter.py @00df707e): (accepted tokens -
      // verify calls) / (verify calls x (speculative_num_draft_tokens - 1)).
      JsonNode activeK = r.get("sglang-active-k").path("signals");
      double generation = 400 + 300;
      double verifyCalls = 200;
      int numDraftTokens = 6;
      double sglangOwn = (generation - verifyCalls) / (verifyCalls * (numDraftTokens - 1));
      assertThat(sglangOwn).isEqualTo(0.5);
      assertThat(activeK.path("acceptance_rate").asDouble()).isCloseTo(sglangOwn, within(1e-6));
      assertThat(activeK.path("mean_accepted_length").asDouble()).isCloseTo(3.5, within(1e-6));
      assertThat(activeK.path("generation_tokens_per_second").asDouble())
          .isCloseTo(700, within(700 * 0.02));
      assertThat(activeK.path("drafts_in_window").asDouble()).isCloseTo(6000, within(6000 * 0.05));
      // The servers' k, not the policy's 3 (which would read 2.5 / 3 = 0.83), and the mismatch
      // said.
      JsonNode activeKForm = r.get("sglang-active-k").path("form");
      assertThat(activeKForm.path("engine_k").path("min").asInt()).isEqualTo(5);
      assertThat(activeKForm.path("engine_k").path("max").asInt()).isEqualTo(5);
      assertThat(activeKForm.path("engine_k").path("exact").asBoolean()).isTrue();
      assertThat(activeKForm.path("notes"))
          .extracting(JsonNode::asText)
          .contains(
              "k mismatch: the servers run k = 5 (sglang:spec_num_draft_tokens - 1), the policy"
                  + " says num_speculative_tokens: 3; set it to 5 (the figures here already divide"
                  + " by the servers' k)");

      // Adaptive SGLang: k 5 and 3 for half the verify calls each, so SGLang's own acceptance is
      // (700 - 200) / (100 x 5 + 100 x 3) = 0.625 (the policy's k would give 0.5). A window of 30
      // or 31 scrapes holds one value once more than the other: the mean k is 4 to within 1 %.
      JsonNode adaptive = r.get("sglang-adaptive-k").path("signals");
      double adaptiveOwn = (700.0 - 200) / (100 * 5 + 100 * 3);
      assertThat(adaptive.path("acceptance_rate").asDouble())
          .isCloseTo(adaptiveOwn, within(adaptiveOwn * 0.01));
      assertThat(adaptive.path("mean_accepted_length").asDouble()).isCloseTo(3.5, within(1e-6));
      JsonNode adaptiveForm = r.get("sglang-adaptive-k").path("form");
      assertThat(adaptiveForm.path("engine_k").path("min").asInt()).isEqualTo(3);
      assertThat(adaptiveForm.path("engine_k").path("max").asInt()).isEqualTo(5);
      assertThat(adaptiveForm.path("notes"))
          .extracting(JsonNode::asText)
          .contains(
              "k changed within the window: the servers ran k from 3 to 5"
                  + " (sglang:spec_num_draft_tokens - 1), the policy's num_speculative_tokens is 5;"
                  + " the figures divide by the servers' k averaged over the window");
      // The recipe charts' series of k (one point a step; its changes are marked): the highest
      // active gauge of a step, 6 (k = 5 after the offset) even while the adaptive server
      // alternates; vLLM's registered positions, 3.
      QueryScope chartScope =
          new QueryScope(
              List.of("job", "model_name"),
              List.of(LabelMatcher.equal("job", "sglang-adaptive-k")),
              Duration.ofMinutes(1));
      ActiveK sglangK = SglangProfile.INSTANCE.activeK().orElseThrow();
      assertThat(promApi.scalar(sglangK.rangeQuery(chartScope)) + sglangK.offset()).isEqualTo(5);
      QueryScope vllmScope =
          new QueryScope(
              List.of("job", "model_name"),
              List.of(LabelMatcher.equal("job", "vllm-v1-dp2")),
              Duration.ofMinutes(1));
      assertThat(promApi.scalar(VllmProfile.INSTANCE.activeK().orElseThrow().rangeQuery(vllmScope)))
          .isEqualTo(3);
      // vLLM registers a series per position at start-up: its k is exact, and agrees here (no
      // note); llama.cpp's positions are the longest draft seen, a lower bound.
      JsonNode vllmK = r.get("vllm-v1-dp2").path("form");
      assertThat(vllmK.path("engine_k").path("max").asInt()).isEqualTo(3);
      assertThat(vllmK.path("engine_k").path("exact").asBoolean()).isTrue();
      assertThat(vllmK.path("notes")).isEmpty();
      JsonNode llamacppK = r.get("llamacpp").path("form");
      assertThat(llamacppK.path("engine_k").path("max").asInt()).isEqualTo(4);
      assertThat(llamacppK.path("engine_k").path("exact").asBoolean()).isFalse();
      // llama.cpp's drafts stop early: 350 draft tokens over 100 drafts, 3.5 of k = 4.
      assertThat(llamacppK.path("engine_k").path("mean_draft").asDouble())
          .isCloseTo(3.5, within(1e-9));
      assertThat(llamacppK.path("notes"))
          .extracting(JsonNode::asText)
          .singleElement(as(InstanceOfAssertFactories.STRING))
          .startsWith("drafts average 3.50 tokens of k = 4: the engine proposes shorter drafts");
      assertThat(vllmK.path("engine_k").path("mean_draft").asDouble()).isCloseTo(3, within(1e-9));

      // vLLM whose drafts average 3 tokens under k = 5: every figure exact (acceptance 210 / 300,
      // length 1 + 210 / 100, positions over all 100 drafts), k exact from the five registered
      // positions, and the short drafts said.
      JsonNode dynamic = r.get("vllm-dynamic-draft-length").path("signals");
      assertFigures(dynamic, 0.7, 3.1, 310, 3000, 0.9, 0.6, 0.4, 0.15, 0.05);
      JsonNode dynamicForm = r.get("vllm-dynamic-draft-length").path("form");
      assertThat(dynamicForm.path("engine_k").toString())
          .contains("\"min\":5,\"max\":5,\"exact\":true");
      assertThat(dynamicForm.path("engine_k").path("mean_draft").asDouble())
          .isCloseTo(3, within(1e-9));
      assertThat(dynamicForm.path("notes"))
          .extracting(JsonNode::asText)
          .singleElement(as(InstanceOfAssertFactories.STRING))
          .isEqualTo(
              "drafts average 3.00 tokens of k = 5: the engine proposes shorter drafts than k (a"
                  + " draft-length policy or dynamic speculation, an n-gram proposer finding"
                  + " shorter matches, a draft stopping early); acceptance and the accepted length"
                  + " are exact, acceptance by position counts every draft, whether it reached the"
                  + " position or not");

      // TensorRT-LLM: 210 / 300 = 0.7, 1 + 3 x 0.7 = 3.1; positions 90, 70, 50 of 100 drafted at
      // position 0.
      JsonNode trt = r.get("trtllm").path("signals");
      assertThat(trt.path("acceptance_rate").asDouble()).isCloseTo(0.7, within(1e-6));
      assertThat(trt.path("mean_accepted_length").asDouble()).isCloseTo(3.1, within(1e-6));
      assertPositions(trt, 0.9, 0.7, 0.5);
      assertThat(trt.path("generation_tokens_per_second").asDouble())
          .isCloseTo(310, within(310 * 0.02));
      // Before a request finishes: the iteration counters only. 195 / 300 = 0.65, 1 + 3 x 0.65 =
      // 2.95; no positions and no generation tokens yet.
      JsonNode iter = r.get("trtllm-iteration-stats-only").path("signals");
      assertThat(iter.path("acceptance_rate").asDouble()).isCloseTo(0.65, within(1e-6));
      assertThat(iter.path("mean_accepted_length").asDouble()).isCloseTo(2.95, within(1e-6));
      assertThat(iter.path("drafts_in_window").asDouble()).isCloseTo(3000, within(3000 * 0.05));
      assertThat(iter.path("position_acceptance")).hasSize(3).allMatch(JsonNode::isNull);
      assertThat(iter.path("generation_tokens_per_second").isNull()).as(iter.toString()).isTrue();
      // Without iteration stats: the per-position counters summed, 180 / 300 = 0.6, 1 + 3 x 0.6 =
      // 2.8; drafts from position 0, 100 a second, exact without k.
      JsonNode positionsOnly = r.get("trtllm-positions-only").path("signals");
      assertFigures(positionsOnly, 0.6, 2.8, 280, 3000, 0.8, 0.6, 0.4);
      // llama.cpp, vLLM's schema under llamacpp: and no labels: 245 / 350 = 0.7, 1 + 245 / 100 =
      // 3.45 (drafts shorter than k), positions 90, 70, 50, 35 of 100 drafts, 345 generated
      // tokens a second.
      JsonNode llamacpp = r.get("llamacpp").path("signals");
      assertFigures(llamacpp, 0.7, 3.45, 345, 3000, 0.9, 0.7, 0.5, 0.35);
      assertThat(llamacpp.path("draft_overhead").isNull()).as("llama.cpp exports none").isTrue();
      // Ray Serve LLM, two replicas (ReplicaId, WorkerId summed away): 2 x 180 / 2 x 300 = 0.6,
      // 1 + 360 / 200 = 2.8, positions 80, 60, 40 of 100 drafts, 2 x 280 generated tokens a
      // second.
      JsonNode ray = r.get("ray_vllm").path("signals");
      assertFigures(ray, 0.6, 2.8, 560, 6000, 0.8, 0.6, 0.4);
      // trtllm_spec_decode_draft_overhead, a gauge at 0.12: the share of time spent drafting.
      assertThat(trt.path("draft_overhead").asDouble()).isCloseTo(0.12, within(1e-9));
      assertThat(vllm.path("draft_overhead").isNull()).as("vLLM exports none").isTrue();
      // advise takes its model's draft cost from it: c = 0.12 / (0.88 x 3).
      MainTest.Result advise =
          MainTest.run(
              "advise",
              "--config",
              config.toString(),
              "--recipe",
              "trtllm",
              "--window",
              "30s",
              "--output",
              "json");
      JsonNode advice = JSON.readTree(advise.out());
      assertThat(advice.path("draft_cost").asDouble()).isCloseTo(0.12 / (0.88 * 3), within(1e-6));
      assertThat(advice.path("draft_cost_source").asText()).contains("draft_overhead");
      assertThat(advice.path("k_note").isNull()).as("k agrees").isTrue();
      // An engine that picks k itself: advise says so before anything else (SGLang has no
      // positions to advise on).
      MainTest.Result adaptiveAdvice =
          MainTest.run(
              "advise",
              "--config",
              config.toString(),
              "--recipe",
              "sglang-adaptive-k",
              "--window",
              "30s");
      assertThat(adaptiveAdvice.out())
          .startsWith("note: k changed within the window: the servers ran k from 3 to 5")
          .contains("The engine picks k itself: advice on k is advice on the highest it may use");

      // How each figure was obtained, in the JSON and the table.
      assertThat(form(r, "vllm-v1-dp2")).isEqualTo("false exported");
      assertThat(form(r, "vllm-v1-token-counters-only"))
          .isEqualTo("false not exported by this vLLM");
      assertThat(r.get("vllm-v1-token-counters-only").path("form").path("notes").get(0).asText())
          .contains("1 + k x acceptance");
      assertThat(form(r, "sglang-verify-calls")).isEqualTo("false not exported by SGLang");
      assertThat(form(r, "sglang-dp-attention")).isEqualTo("false not exported by SGLang");
      assertThat(form(r, "sglang-gauges-only")).isEqualTo("true not exported by SGLang");
      assertThat(form(r, "sglang-active-k")).isEqualTo("false not exported by SGLang");
      assertThat(r.get("sglang-gauges-only").path("form").path("notes").get(0).asText())
          .startsWith("approximate: this SGLang exports no spec_verify_calls_total");
      assertThat(form(r, "trtllm")).isEqualTo("false exported");
      assertThat(form(r, "llamacpp")).isEqualTo("false exported");
      assertThat(form(r, "ray_vllm")).isEqualTo("false exported");
      assertThat(form(r, "trtllm-positions-only")).isEqualTo("false exported");
      Instant at = Instant.parse(JSON.readTree(run.out()).path("evaluated_at").asText());
      String table =
          MainTest.run("check", "--config", config.toString(), "--time", at.toString()).out();
      assertThat(table)
          .containsPattern("(?m)^sglang-gauges-only +sglang +breach +~0\\.438 +~2\\.75 +n/a ")
          .containsPattern("(?m)^sglang-verify-calls +sglang +ok +0\\.500 +3\\.00 +n/a ")
          .containsPattern("(?m)^vllm-v1-token-counters-only +vllm +ok +0\\.800 +3\\.40 +n/a ")
          .containsPattern("(?m)^trtllm +trtllm +ok +0\\.700 +3\\.10 +0\\.90 0\\.70 0\\.50 ")
          .containsPattern(
              "(?m)^llamacpp +llamacpp +ok +0\\.700 +3\\.45 +0\\.90 0\\.70 0\\.50 0\\.35 ")
          .containsPattern("(?m)^ray_vllm +ray_vllm +ok +0\\.600 +2\\.80 +0\\.80 0\\.60 0\\.40 ")
          .containsPattern(
              "(?m)^trtllm-positions-only +trtllm +ok +0\\.600 +2\\.80 +0\\.80 0\\.60 0\\.40 ")
          .contains("sglang-gauges-only: approximate: this SGLang exports no")
          .contains("sglang-active-k: k mismatch: the servers run k = 5");

      // replay through the same state machine over the last 20 s: only the breaching recipe
      // fires (for: 0s), every other one stays quiet.
      MainTest.Result replay =
          MainTest.run(
              "replay",
              "--config",
              config.toString(),
              "--from",
              at.minusSeconds(20).toString(),
              "--to",
              at.toString(),
              "--step",
              "5s",
              "--output",
              "json");
      JsonNode transitions = JSON.readTree(replay.out()).path("transitions");
      assertThat(transitions).isNotEmpty();
      assertThat(transitions)
          .extracting(t -> t.path("alert_id").asText())
          .containsOnly("sglang-gauges-only/acceptance_rate");
      assertThat(transitions.get(0).path("event").asText()).isEqualTo("firing");

      anOlderTrtllmServeIsToldWhyItCannotBeWatched(prometheus.baseUri(), at);
      discoverListsEveryModelWithItsEngine(config, at);
      theDaemonFiresOnTheBreachingShapeOnly(prometheus.baseUri());
    }
  }

  /**
   * The daemon on the same Prometheus: the gauges-only SGLang recipe fires (its acceptance 0.4375
   * is under its line, for: 0s), no other shape does, and the API carries every recipe's form.
   */
  private void theDaemonFiresOnTheBreachingShapeOnly(URI prometheus) throws Exception {
    // The policies of check's config (alerts/), evaluated as check does (30 s window, every 5 s).
    Path daemonConfig =
        DaemonProcess.Config.of(prometheus)
            .evaluation("5s", "30s")
            .log()
            .write(dir.resolve("daemon.yaml"));
    Path log = dir.resolve("daemon.log");
    Files.writeString(log, "");
    DaemonProcess daemon = DaemonProcess.start(daemonConfig, log);
    try {
      int port = daemon.port();
      HttpClient http = HttpClient.newHttpClient();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode alerts = JSON.readTree(get(http, port, "/api/v1/alerts"));
                assertThat(alerts.path("alerts"))
                    .extracting(a -> a.path("id").asText() + " " + a.path("state").asText())
                    .containsExactly("sglang-gauges-only/acceptance_rate firing");
                // The alert state and the evaluation are two reads of a running cycle: the
                // evaluation is shared right after the alerts change, so both are awaited.
                JsonNode recipes =
                    JSON.readTree(get(http, port, "/api/v1/recipes")).path("recipes");
                assertThat(recipes).hasSize(WATCHED.size());
                assertThat(recipes)
                    .allSatisfy(
                        r -> assertThat(r.path("form").path("positions").asText()).isNotEmpty());
                // the adaptive server's k as the daemon read it
                assertThat(recipes)
                    .anySatisfy(
                        r ->
                            assertThat(r.path("form").path("engine_k").toString())
                                .contains("\"min\":3,\"max\":5,\"exact\":true"));
              });
    } finally {
      daemon.stop(Duration.ofSeconds(20));
    }
    assertThat(Files.readString(log)).contains("sglang-gauges-only").doesNotContain("Exception");
  }

  private static String get(HttpClient http, int port, String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * A policy on a trtllm-serve from before TensorRT-LLM's token and speculative metrics: no data,
   * and the hint says why (not "is it scraped yet?": it is, and will never have them).
   */
  private void anOlderTrtllmServeIsToldWhyItCannotBeWatched(URI prometheus, Instant at)
      throws IOException {
    Path old = Files.createDirectories(dir.resolve("old-trtllm"));
    jobPolicy(old, "trtllm-no-speculative-metrics", "trtllm", 3, "  acceptance_rate: {below: 0.5}");
    Path config = dir.resolve("old-trtllm.yaml");
    Files.writeString(
        config,
        "prometheus:\n  url: "
            + prometheus
            + "\nevaluation: {window: 30s, interval: 5s}\npolicies: old-trtllm\n",
        StandardCharsets.UTF_8);
    MainTest.Result run =
        MainTest.run(
            "check", "--config", config.toString(), "--output", "json", "--time", at.toString());
    assertThat(run.exit()).as(run.err()).isEqualTo(4);
    JsonNode recipe = recipes(run.out()).get("trtllm-no-speculative-metrics");
    assertThat(recipe.path("state").asText()).isEqualTo("no_data");
    assertThat(recipe.path("no_data_hint").asText())
        .isEqualTo(
            "the match finds request_success_total but no trtllm_generation_tokens_total: this"
                + " trtllm-serve predates TensorRT-LLM's token and speculative-decoding metrics: it"
                + " exports request_success_total and latency histograms only, without the trtllm_"
                + " prefix (tensorrt_llm/metrics/collector.py @89fd9b74); upgrade it to watch"
                + " speculation");
  }

  /** {@code discover} on the same Prometheus: every fixture's model, three engines, by names. */
  private void discoverListsEveryModelWithItsEngine(Path config, Instant at) throws IOException {
    Path written = dir.resolve("discovered");
    MainTest.Result run =
        MainTest.run(
            "discover",
            "--config",
            config.toString(),
            "--output",
            "json",
            "--time",
            at.toString(),
            "--write",
            written.toString());
    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode root = JSON.readTree(run.out());
    Map<String, JsonNode> byJob = new HashMap<>();
    root.path("models").forEach(m -> byJob.put(m.path("job").asText(), m));
    // Not the TensorRT-LLM without speculative metrics: there is nothing of it to watch.
    assertThat(byJob).containsOnlyKeys(WATCHED);
    assertThat(byJob)
        .allSatisfy(
            (job, m) -> {
              assertThat(m.path("engine").asText()).as(job).isEqualTo(job.split("-")[0]);
              assertThat(m.path("speculative").asBoolean()).as(job).isTrue();
            });
    JsonNode vllm = byJob.get("vllm-v1-dp2");
    assertThat(vllm.path("model_name").asText()).isEqualTo("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8");
    assertThat(vllm.path("shape").asText()).isEqualTo("per-position");
    assertThat(vllm.path("k").asInt()).isEqualTo(3);
    // rate() over the last 5 minutes, of which the fixtures have been scraped for less than one
    assertThat(vllm.path("generation_tokens_per_second").asDouble()).isBetween(1.0, 620 * 1.05);
    assertThat(vllm.path("signals"))
        .extracting(JsonNode::asText)
        .contains("acceptance_rate", "position_acceptance", "running_requests");
    assertThat(vllm.path("missing")).isEmpty();
    JsonNode old = byJob.get("vllm-v1-token-counters-only");
    assertThat(old.path("shape").asText()).startsWith("token-counters-only");
    assertThat(old.path("k").isNull()).isTrue();
    assertThat(old.path("missing"))
        .extracting(JsonNode::asText)
        .contains("position_acceptance: not exported by this vLLM");
    assertThat(byJob.get("sglang-dp-attention").path("shape").asText())
        .isEqualTo("verify-calls, DP attention (2 schedulers)");
    assertThat(byJob.get("sglang-gauges-only").path("shape").asText())
        .startsWith("gauges-only (approximate), DP attention (2 schedulers)");
    assertThat(byJob.get("sglang-verify-calls").path("shape").asText()).isEqualTo("verify-calls");
    // k from the active speculative_num_draft_tokens (6) less the bonus token, not from
    // speculative_num_steps (3): they differ under a tree (top-k 4).
    JsonNode activeK = byJob.get("sglang-active-k");
    assertThat(activeK.path("k").asInt()).isEqualTo(5);
    assertThat(activeK.path("k_source").asText())
        .startsWith("sglang:spec_num_draft_tokens - 1")
        .doesNotContain("moved");
    // The configured policy says 3: discover warns, where it points, with what to set.
    assertThat(activeK.path("warnings"))
        .extracting(JsonNode::asText)
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .startsWith("recipe 'sglang-active-k' (")
        .contains("sglang-active-k.yaml:1:1) has num_speculative_tokens: 3, the servers run k = 5")
        .endsWith("): set it to 5");
    assertThat(byJob.get("vllm-v1-dp2").path("warnings")).isEmpty();
    assertThat(byJob.get("llamacpp").path("warnings")).isEmpty();
    // Adaptive: the highest k of the last hour, and that it moves.
    JsonNode adaptive = byJob.get("sglang-adaptive-k");
    assertThat(adaptive.path("k").asInt()).isEqualTo(5);
    assertThat(adaptive.path("k_source").asText())
        .contains("it moved between 3 and 5 in the last hour (adaptive speculation)");
    assertThat(byJob.get("trtllm").path("k").asInt()).isEqualTo(3);
    assertThat(byJob.get("trtllm").path("missing"))
        .extracting(JsonNode::asText)
        .contains(
            "model_name: trtllm-serve labels every series model_name=\"undefined\""
                + " (tensorrt_llm/serve/openai_server.py @00057725): the policy matches its job");
    // Listed although trtllm_generation_tokens_total has no series yet (before, it was omitted),
    // with what that costs.
    JsonNode iteration = byJob.get("trtllm-iteration-stats-only");
    // trtllm-serve's model_name="undefined" names nothing: listed by its job, and said.
    assertThat(iteration.path("model_name").asText()).isEmpty();
    assertThat(iteration.path("shape").asText()).isEqualTo("iteration stats only");
    assertThat(iteration.path("k").isNull()).isTrue();
    assertThat(iteration.path("signals"))
        .extracting(JsonNode::asText)
        .contains("acceptance_rate", "running_requests")
        .doesNotContain("generation_tokens_per_second", "position_acceptance");
    assertThat(iteration.path("missing"))
        .extracting(JsonNode::asText)
        .contains(
            "generation_tokens_per_second: no trtllm_generation_tokens_total series (the speed-up"
                + " and the digest's throughput need it)",
            "position_acceptance: trtllm-serve fills it only with return_perf_metrics");

    // No model_name: listed by its job, k the longest draft its per-position counter has seen.
    JsonNode llamacpp = byJob.get("llamacpp");
    assertThat(llamacpp.path("model_name").asText()).isEmpty();
    assertThat(llamacpp.path("shape").asText()).isEqualTo("per-position");
    assertThat(llamacpp.path("k").asInt()).isEqualTo(4);
    assertThat(llamacpp.path("k_source").asText()).startsWith("the longest draft seen");
    assertThat(llamacpp.path("signals"))
        .extracting(JsonNode::asText)
        .contains(
            "acceptance_rate",
            "position_acceptance",
            "generation_tokens_per_second",
            "running_requests");
    assertThat(llamacpp.path("missing")).isEmpty();
    // TensorRT-LLM without iteration stats: listed by its per-position counters, k from them.
    JsonNode trtPositions = byJob.get("trtllm-positions-only");
    assertThat(trtPositions.path("shape").asText())
        .isEqualTo("per-position only (no iteration stats)");
    assertThat(trtPositions.path("k").asInt()).isEqualTo(3);
    assertThat(trtPositions.path("speculative").asBoolean()).isTrue();
    assertThat(trtPositions.path("missing"))
        .extracting(JsonNode::asText)
        .anySatisfy(m -> assertThat(m).startsWith("iteration counters: trtllm-serve exports"));
    // Ray Serve LLM's vLLM, found by its ray_vllm_ names: k from its positions.
    JsonNode ray = byJob.get("ray_vllm");
    assertThat(ray.path("model_name").asText()).isEqualTo("meta-llama/Llama-3.3-70B-Instruct");
    assertThat(ray.path("shape").asText()).isEqualTo("per-position");
    assertThat(ray.path("k").asInt()).isEqualTo(3);
    assertThat(ray.path("signals"))
        .extracting(JsonNode::asText)
        .contains("acceptance_rate", "position_acceptance", "running_requests");
    assertThat(ray.path("missing")).isEmpty();

    // --write: a policy where k is known (vLLM's and TensorRT-LLM's positions, SGLang's gauge),
    // without a day of
    // history a starter threshold from the acceptance just observed (it alerts from the first
    // hour), and a line for every model not written.
    assertThat(root.path("written"))
        .extracting(JsonNode::asText)
        .anySatisfy(l -> assertThat(l).startsWith("not written deepseek-ai/DeepSeek-V3: k is"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains(
                        "qwen-qwen3-next-80b-a3b-instruct-fp8.yaml: a starter threshold"
                            + " (acceptance below"));
    assertThat(written.resolve("qwen-qwen3-next-80b-a3b-instruct-fp8.yaml"))
        .content()
        .contains("# A starter threshold: acceptance was ")
        .containsPattern("acceptance_rate: \\{below: 0\\.\\d\\d, clear_above: 0\\.\\d\\d}");
    try (var files = Files.list(written)) {
      assertThat(files.map(f -> f.getFileName().toString()).sorted().toList())
          .containsExactly(
              "deepseek-ai-deepseek-v3.1-terminus.yaml",
              "llamacpp.yaml",
              "meta-llama-llama-3.3-70b-instruct.yaml",
              "qwen-qwen3-coder-480b-a35b-instruct-fp8.yaml",
              "qwen-qwen3-next-80b-a3b-instruct-fp8.yaml",
              "trtllm-positions-only.yaml",
              "trtllm.yaml",
              "zai-org-glm-4.5-air.yaml");
      assertThat(written.resolve("trtllm.yaml"))
          .content()
          .contains("engine: trtllm\nmatch:\n  job: \"trtllm\"\nnum_speculative_tokens: 3\n");
    }
    assertThat(written.resolve("llamacpp.yaml"))
        .content()
        .contains("engine: llamacpp\nmatch:\n  job: \"llamacpp\"\nnum_speculative_tokens: 4\n");
    assertThat(written.resolve("meta-llama-llama-3.3-70b-instruct.yaml"))
        .content()
        .contains("engine: ray_vllm\nmatch:\n  job: \"ray_vllm\"\n");
    Path discovered = dir.resolve("discovered.yaml");
    Files.writeString(
        discovered,
        Files.readString(config).replace("policies: alerts", "policies: discovered"),
        StandardCharsets.UTF_8);
    MainTest.Result check =
        MainTest.run(
            "check",
            "--config",
            discovered.toString(),
            "--output",
            "json",
            "--time",
            at.toString());
    assertThat(check.exit()).as(check.err()).isZero();
    assertThat(recipes(check.out()).values())
        .extracting(r -> r.path("state").asText())
        .containsExactly("ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok");
  }

  /** The fixtures a recipe watches: all but the server too old to export what specwatch reads. */
  private static final List<String> WATCHED =
      FixtureServer.FIXTURES.stream()
          .filter(f -> !f.equals("trtllm-no-speculative-metrics"))
          .toList();

  private static PrometheusServer prometheus(FixtureServer fixtures) throws IOException {
    PrometheusServer.Builder builder =
        PrometheusServer.builder().scrapeInterval(Duration.ofSeconds(1));
    for (String fixture : FixtureServer.FIXTURES) {
      builder.job(fixture, FixtureServer.metricsPath(fixture), List.of(fixtures.target()));
    }
    return builder.start();
  }

  private static String form(Map<String, JsonNode> r, String recipe) {
    JsonNode form = r.get(recipe).path("form");
    return form.path("approximate").asText() + " " + form.path("positions").asText();
  }

  /**
   * A recipe's figures as derived by hand: acceptance and accepted length exact (to 1e-6), the
   * generation rate to 2 % and the drafts in the 30 s window to 5 % (scrape timing), and the
   * acceptance by position.
   */
  private static void assertFigures(
      JsonNode signals,
      double acceptance,
      double length,
      double generationPerSecond,
      double drafts,
      double... positions) {
    assertThat(signals.path("acceptance_rate").asDouble()).isCloseTo(acceptance, within(1e-6));
    assertThat(signals.path("mean_accepted_length").asDouble()).isCloseTo(length, within(1e-6));
    assertPositions(signals, positions);
    assertThat(signals.path("generation_tokens_per_second").asDouble())
        .isCloseTo(generationPerSecond, within(generationPerSecond * 0.02));
    assertThat(signals.path("drafts_in_window").asDouble())
        .isCloseTo(drafts, within(drafts * 0.05));
  }

  private static void assertPositions(JsonNode signals, double... expected) {
    JsonNode positions = signals.path("position_acceptance");
    assertThat(positions).hasSize(expected.length);
    for (int i = 0; i < expected.length; i++) {
      assertThat(positions.get(i).asDouble())
          .as("position %d", i)
          .isCloseTo(expected[i], within(1e-6));
    }
  }

  private static Map<String, JsonNode> recipes(String json) throws IOException {
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode recipe : JSON.readTree(json).path("recipes")) {
      out.put(recipe.path("name").asText(), recipe);
    }
    return out;
  }
}
