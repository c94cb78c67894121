package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.digest.Digest;
import dev.specwatch.digest.DigestCollector;
import dev.specwatch.digest.DigestPeriod;
import dev.specwatch.digest.DigestRenderer;
import dev.specwatch.digest.RecipeWeek;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.testing.HistogramHistory;
import dev.specwatch.testing.PrometheusServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code advise} measures speed-up by load from history with a known answer, backfilled with
 * promtool into a real Prometheus: a speculative deployment ("spec") beside one without speculation
 * ("plain"), and a deployment that turned MTP on half way ("upgraded"). Each runs the same cycle of
 * loads, 20 minutes each, with its own noise (an AR(1) wander of 5 % a scrape). The history is
 * aligned to its own start, not to the wall clock.
 */
class SpeedupIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Per-request tokens/s by bucket of running requests (1, 2–3, 4–7, 8–15). */
  private static final double[] SPEC = {90, 70, 48, 30};

  private static final double[] PLAIN = {45, 42, 40, 36};
  private static final int[] LOADS = {1, 2, 3, 4, 6, 8, 12, 5, 10};
  private static final double[] ACCEPTANCE = {0.8, 0.6, 0.4};
  private static final Duration HALF = Duration.ofHours(9);

  /** The history starts here: a whole minute, some days back (the suite's hour plays no part). */
  private static Instant start;

  private static Instant end;

  private static DigestPeriod period;

  @TempDir static Path dir;
  private static PrometheusServer prometheus;
  private static Path config;

  @BeforeAll
  static void backfill() throws Exception {
    // Tuesday 00:00 of the last complete week: the history lies inside one digest period.
    period = DigestPeriod.lastComplete(Instant.now(), ZoneOffset.UTC);
    start = period.start().plus(Duration.ofDays(1));
    end = start.plus(HALF.multipliedBy(2));
    StringBuilder om = new StringBuilder();
    StringBuilder running = new StringBuilder();
    StringBuilder drafts = new StringBuilder();
    StringBuilder draftTokens = new StringBuilder();
    StringBuilder accepted = new StringBuilder();
    StringBuilder perPosition = new StringBuilder();
    om.append("# TYPE vllm:generation_tokens counter\n");
    series(om, running, drafts, draftTokens, accepted, perPosition, "it/spec", 1, start, 3);
    series(om, running, drafts, draftTokens, accepted, perPosition, "it/plain", 2, start, 0);
    series(om, running, drafts, draftTokens, accepted, perPosition, "it/upgraded", 3, start, -1);
    om.append("# TYPE vllm:num_requests_running gauge\n").append(running);
    om.append("# TYPE vllm:spec_decode_num_drafts counter\n").append(drafts);
    om.append("# TYPE vllm:spec_decode_num_draft_tokens counter\n").append(draftTokens);
    om.append("# TYPE vllm:spec_decode_num_accepted_tokens counter\n").append(accepted);
    om.append("# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter\n").append(perPosition);
    // vLLM's per-request histograms, for spec and plain only ("upgraded" runs a vLLM without).
    for (String family :
        List.of(
            "request_generation_tokens", "request_decode_time_seconds", "request_prompt_tokens")) {
      om.append("# TYPE vllm:").append(family).append(" histogram\n");
      om.append(finished(family, "it/spec", SPEC, 0));
      om.append(finished(family, "it/plain", PLAIN, 1));
    }
    om.append("# EOF\n");
    prometheus = PrometheusServer.builder().history(om.toString()).start();
    Path alerts = dir.resolve("alerts");
    Files.createDirectories(alerts);
    policy(
        alerts,
        "spec",
        "it/spec",
        3,
        "speedup_baseline: plain\nthresholds:\n  speedup: {below: 2.2, clear_above: 2.3, over: 18h}\n");
    policy(
        alerts,
        "plain",
        "it/plain",
        0,
        "thresholds: {throughput: {max_relative_drop: 0.5, baseline: 1h}}\n");
    policy(alerts, "upgraded", "it/upgraded", 3, "");
    config = dir.resolve("specwatch.yaml");
    Files.writeString(
        config,
        "prometheus: {url: \"" + prometheus.baseUri() + "\"}\npolicies: alerts\n",
        StandardCharsets.UTF_8);
  }

  /** Generated tokens of each finished request (199 of them decoded after the prefill's one). */
  private static final int TOKENS_PER_REQUEST = 200;

  /**
   * The mean prompt tokens of the requests of spec [0] and plain [1]: spec's are three times as
   * long, so its comparison is labelled as possibly confounded.
   */
  private static final double[] PROMPT_TOKENS = {3000, 1000};

  /** The decode tokens and decode seconds of the requests of spec [0] and plain [1]. */
  private static final double[][] FINISHED = new double[2][2];

  /**
   * One histogram of one deployment's finished requests, a point every 15 s: as many requests
   * finish as the load's decode speed generates tokens, each decoding 199 tokens at that speed.
   * Every request lands in the +Inf bucket; the figures read only _sum and _count.
   */
  private static String finished(String family, String model, double[] speeds, int side) {
    HistogramHistory h =
        new HistogramHistory(
            "vllm:" + family, "job=\"vllm\",instance=\"a\",model_name=\"" + model + "\"");
    double requests = 0;
    double total = 0;
    boolean tokens = family.equals("request_generation_tokens");
    int offset = side == 0 ? 1 : 2; // the loads of series(): its offset is the seed
    for (long s = 0; s <= HALF.multipliedBy(2).toSeconds(); s += 15) {
      long time = start.getEpochSecond() + s;
      int load = LOADS[(int) ((s / 1200 + offset) % LOADS.length)];
      double speed = speeds[31 - Integer.numberOfLeadingZeros(load)];
      if (s > 0) {
        double r = load * speed * 15 / TOKENS_PER_REQUEST;
        requests += r;
        double decodeSeconds = r * (TOKENS_PER_REQUEST - 1) / speed;
        total +=
            tokens
                ? r * TOKENS_PER_REQUEST
                : family.equals("request_prompt_tokens") ? r * PROMPT_TOKENS[side] : decodeSeconds;
        if (tokens) {
          FINISHED[side][0] += r * (TOKENS_PER_REQUEST - 1);
          FINISHED[side][1] += decodeSeconds;
        }
      }
      h.add(time, requests, total);
    }
    return h.text();
  }

  @AfterAll
  static void stop() {
    if (prometheus != null) {
      prometheus.close();
    }
  }

  private static void policy(Path alerts, String recipe, String model, int k, String extra)
      throws Exception {
    Files.writeString(
        alerts.resolve(recipe + ".yaml"),
        "recipe: "
            + recipe
            + "\nmatch: {job: vllm, model_name: \""
            + model
            + "\"}\nnum_speculative_tokens: "
            + k
            + "\nmin_drafts: 10\n"
            + extra,
        StandardCharsets.UTF_8);
  }

  /**
   * One deployment's series, a sample every 15 s. {@code k} 3 speculates throughout, 0 never, −1
   * from {@link #HALF} on (its spec-decode counters start then, as after the restart that turned
   * MTP on).
   */
  private static void series(
      StringBuilder tokens,
      StringBuilder running,
      StringBuilder drafts,
      StringBuilder draftTokens,
      StringBuilder accepted,
      StringBuilder perPosition,
      String model,
      long seed,
      Instant from,
      int k) {
    SplittableRandom random = new SplittableRandom(seed);
    String labels = "{job=\"vllm\",instance=\"a\",model_name=\"" + model + "\"}";
    double total = 0;
    double d = 0;
    double[] pos = new double[3];
    double noise = 0;
    double length = 1 + ACCEPTANCE[0] + ACCEPTANCE[1] + ACCEPTANCE[2];
    int offset = (int) seed; // each deployment meets the loads in its own order
    StringBuilder t = new StringBuilder();
    StringBuilder r = new StringBuilder();
    for (long s = 0; s <= HALF.multipliedBy(2).toSeconds(); s += 15) {
      double time = from.getEpochSecond() + s;
      int load = LOADS[(int) ((s / 1200 + offset) % LOADS.length)];
      int bucket = 31 - Integer.numberOfLeadingZeros(load);
      boolean speculating = k > 0 || (k < 0 && s >= HALF.toSeconds());
      double speed = speculating ? SPEC[bucket] : PLAIN[bucket];
      noise = 0.9 * noise + Math.sqrt(1 - 0.81) * 0.05 * random.nextGaussian();
      if (s > 0) {
        double generated = load * speed * 15 * (1 + noise);
        total += generated;
        if (speculating) {
          double steps = generated / length;
          d += steps;
          for (int i = 0; i < 3; i++) {
            pos[i] += steps * ACCEPTANCE[i];
          }
        }
      }
      t.append(
          String.format(
              Locale.ROOT, "vllm:generation_tokens_total%s %.3f %.0f%n", labels, total, time));
      r.append(
          String.format(Locale.ROOT, "vllm:num_requests_running%s %d %.0f%n", labels, load, time));
      if (speculating) {
        drafts.append(
            String.format(
                Locale.ROOT, "vllm:spec_decode_num_drafts_total%s %.3f %.0f%n", labels, d, time));
        draftTokens.append(
            String.format(
                Locale.ROOT,
                "vllm:spec_decode_num_draft_tokens_total%s %.3f %.0f%n",
                labels,
                3 * d,
                time));
        accepted.append(
            String.format(
                Locale.ROOT,
                "vllm:spec_decode_num_accepted_tokens_total%s %.3f %.0f%n",
                labels,
                pos[0] + pos[1] + pos[2],
                time));
      }
    }
    tokens.append(t);
    running.append(r);
    if (k != 0) {
      // Per position: one series each, after the others (OpenMetrics wants a series contiguous).
      for (int i = 0; i < 3; i++) {
        double cumulative = 0;
        SplittableRandom again = new SplittableRandom(seed);
        double n = 0;
        for (long s = 0; s <= HALF.multipliedBy(2).toSeconds(); s += 15) {
          double time = from.getEpochSecond() + s;
          int load = LOADS[(int) ((s / 1200 + offset) % LOADS.length)];
          int bucket = 31 - Integer.numberOfLeadingZeros(load);
          boolean speculating = k > 0 || s >= HALF.toSeconds();
          n = 0.9 * n + Math.sqrt(1 - 0.81) * 0.05 * again.nextGaussian();
          if (s > 0 && speculating) {
            cumulative += load * SPEC[bucket] * 15 * (1 + n) / length * ACCEPTANCE[i];
          }
          if (speculating) {
            perPosition.append(
                String.format(
                    Locale.ROOT,
                    "vllm:spec_decode_num_accepted_tokens_per_pos_total{job=\"vllm\",instance=\"a\","
                        + "model_name=\"%s\",position=\"%d\"} %.3f %.0f%n",
                    model,
                    i,
                    cumulative,
                    time));
          }
        }
      }
    }
  }

  /** The recipe {@code name} of {@code check --output json}. */
  private static JsonNode recipe(CliRunner.Result r, String name) throws Exception {
    for (JsonNode recipe : JSON.readTree(r.out()).path("recipes")) {
      if (recipe.path("name").asText().equals(name)) {
        return recipe;
      }
    }
    throw new AssertionError("no recipe " + name + " in " + r.out());
  }

  private static JsonNode advise(String... extra) throws Exception {
    return adviseRoot(extra).path("speedup");
  }

  private static void assertKnownSpeedUp(JsonNode speedup) {
    assertThat(speedup.path("measured").asBoolean()).as(speedup.toString()).isTrue();
    JsonNode buckets = speedup.path("by_load");
    assertThat(buckets).hasSize(4);
    for (int b = 0; b < 4; b++) {
      JsonNode bucket = buckets.get(b);
      double truth = SPEC[b] / PLAIN[b];
      assertThat(bucket.path("running_min").asInt()).isEqualTo(1 << b);
      assertThat(bucket.path("speedup").asDouble())
          .as("bucket %s", bucket)
          .isCloseTo(truth, within(truth * 0.05));
      assertThat(bucket.path("low").asDouble()).isLessThan(bucket.path("speedup").asDouble());
      assertThat(bucket.path("hours").asDouble()).isGreaterThan(0.5);
    }
    assertThat(buckets.get(0).path("verdict").asText()).isEqualTo("pays");
    assertThat(buckets.get(3).path("verdict").asText()).isEqualTo("costs");
    assertThat(speedup.path("pays_up_to_running").asInt()).isEqualTo(7);
  }

  @Test
  void againstADeploymentWithoutSpeculationOverTheSameWindow() throws Exception {
    JsonNode speedup = advise("--recipe", "spec", "--window", "18h");
    assertThat(speedup.path("baseline").asText()).isEqualTo("plain");
    assertKnownSpeedUp(speedup);
  }

  @Test
  void againstTheRecipesOwnHistoryBeforeMtpWasTurnedOn() throws Exception {
    JsonNode speedup =
        advise(
            "--recipe",
            "upgraded",
            "--window",
            "9h",
            "--baseline-from",
            start.toString(),
            "--baseline-to",
            start.plus(HALF).toString());
    assertThat(speedup.path("baseline").asText()).isEqualTo("upgraded");
    assertThat(speedup.path("baseline_from").asText()).isEqualTo(start.toString());
    // Not exported: the recipe's own history has no histograms, so no cross-check is claimed.
    assertThat(speedup.path("finished_requests").isNull()).isTrue();
    assertKnownSpeedUp(speedup);
  }

  @Test
  void theSpeedupThresholdReadsTheSpeedUpAtTheLoadTheRecipeRanLately() throws Exception {
    // The last 20 minutes of "spec" run 1 request (90 / 45 = 2.0x over the 18 h): below 2.2.
    CliRunner.Result r =
        CliRunner.run(
            "check", "--config", config.toString(), "--time", end.toString(), "--output", "json");
    JsonNode spec = recipe(r, "spec");

    assertThat(spec.path("state").asText()).as(spec.toString()).isEqualTo("breach");
    assertThat(spec.path("signals").path("speedup").asDouble())
        .isCloseTo(SPEC[0] / PLAIN[0], within(SPEC[0] / PLAIN[0] * 0.05));
    assertThat(spec.path("breaches").get(0).path("rule").asText()).isEqualTo("speedup");
    assertThat(r.exit()).isEqualTo(1);
    // spec's requests carry three times plain's prompt tokens over the rule's 18 h: the reading
    // says it may be the traffic's, in the form's notes and as a field of its own.
    JsonNode form = spec.path("form");
    // Below the line yet paying: the reading says which, with its load and interval.
    assertThat(form.path("speedup_verdict").asText())
        .matches("pays \\([0-9.]+× per request at 1 running request, 95 % [0-9.]+–[0-9.]+\\)");
    assertThat(form.path("speedup_confounded").asText())
        .startsWith("may be confounded: the two sides' requests differ (3,000 vs 1,000 prompt");
    assertThat(form.path("notes"))
        .extracting(JsonNode::asText)
        .anyMatch(n -> n.startsWith("the speed-up may be confounded: the two sides' requests"))
        .anyMatch(n -> n.startsWith("the speed-up at the load it ran lately pays ("));
  }

  @Test
  void theFinishedRequestsHistogramsCrossCheckTheSpeedUpOverAllLoads() throws Exception {
    JsonNode finished = advise("--recipe", "spec").path("finished_requests");
    double spec = FINISHED[0][0] / FINISHED[0][1];
    double plain = FINISHED[1][0] / FINISHED[1][1];
    assertThat(finished.path("tokens_per_second_per_request").asDouble())
        .isCloseTo(spec, within(spec * 0.01));
    assertThat(finished.path("baseline_tokens_per_second_per_request").asDouble())
        .isCloseTo(plain, within(plain * 0.01));
    assertThat(finished.path("speedup").asDouble())
        .isCloseTo(spec / plain, within(spec / plain * 0.02));
    assertThat(finished.path("requests").asLong()).isPositive();
  }

  @Test
  void aComparisonOfTrafficThatDiffersIsLabelledAsPossiblyConfounded() throws Exception {
    // spec's requests carry 3,000 prompt tokens, plain's 1,000 (both generate 200): over a quarter
    // apart, so the speed-up says it may be the traffic's.
    JsonNode speedup = advise("--recipe", "spec");
    JsonNode finished = speedup.path("finished_requests");
    assertThat(finished.path("prompt_tokens").asDouble()).isCloseTo(3000, within(1.0));
    assertThat(finished.path("baseline_prompt_tokens").asDouble()).isCloseTo(1000, within(1.0));
    assertThat(finished.path("output_tokens").asDouble()).isCloseTo(200, within(0.5));
    assertThat(speedup.path("confounded").asText())
        .isEqualTo(
            "may be confounded: the two sides' requests differ (3,000 vs 1,000 prompt tokens, 200"
                + " vs 200 output tokens per finished request), so part of the difference in speed"
                + " may be the traffic's");
    CliRunner.Result text =
        CliRunner.run(
            "advise", "--config", config.toString(), "--recipe", "spec", "--time", end.toString());
    assertThat(text.out()).contains("the speed-up may be confounded: the two sides' requests");
  }

  @Test
  void replayFiresTheSpeedupRuleAtTheStepsItWouldHaveFiredLive() throws Exception {
    // Every bucket of "spec" is below 2.2x (2.0, 1.67, 1.2, 0.83): once the trailing 18 h hold a
    // bucket's worth of data at the load it runs, the rule breaches, and "for" later it fires.
    Instant from = start.plus(Duration.ofHours(10));
    CliRunner.Result r =
        CliRunner.run(
            "replay",
            "--config",
            config.toString(),
            "--from",
            from.toString(),
            "--to",
            end.toString(),
            "--step",
            "5m",
            "--output",
            "json");
    assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.OK);
    List<String> events = new ArrayList<>();
    for (JsonNode t : JSON.readTree(r.out()).path("transitions")) {
      events.add(t.path("alert_id").asText() + " " + t.path("event").asText());
    }
    assertThat(events).contains("spec/speedup firing");
    // The baseline's throughput rule ran and never fired: a 20 % swing by load is under 50 %.
    assertThat(events).noneMatch(e -> e.startsWith("plain/"));
    JsonNode firing = null;
    for (JsonNode t : JSON.readTree(r.out()).path("transitions")) {
      if (t.path("alert_id").asText().equals("spec/speedup")
          && t.path("event").asText().equals("firing")) {
        firing = t;
      }
    }
    assertThat(firing.path("value").asDouble()).isLessThan(2.2);
    // The firing says the comparison may be the traffic's, as the reading does live.
    assertThat(firing.path("reason").asText())
        .containsPattern("^speedup [0-9.]+ below 2\\.200; [a-z ]+ \\([0-9.]+× per request at ")
        .contains("; the speed-up may be confounded: the two sides' requests differ (3,000 vs");
    assertThat(Instant.parse(firing.path("at").asText())).isAfter(from);
  }

  @Test
  void theBaselineIsWatchedForItsThroughputAndRunningRequests() throws Exception {
    // The last 20 minutes of "plain" run 2 requests at 42 tokens/s each.
    String at = end.minus(Duration.ofMinutes(1)).toString();
    CliRunner.Result r =
        CliRunner.run("check", "--config", config.toString(), "--time", at, "--output", "json");
    JsonNode plain = recipe(r, "plain");
    assertThat(plain.path("state").asText()).isEqualTo("ok");
    assertThat(plain.path("speculative").asBoolean()).isFalse();
    assertThat(plain.path("signals").path("running_requests").asDouble()).isEqualTo(2.0);
    assertThat(plain.path("signals").path("tokens_per_second_per_request").asDouble())
        .isCloseTo(PLAIN[1], within(PLAIN[1] * 0.1));
    assertThat(plain.path("signals").path("acceptance_rate").isNull()).isTrue();
    CliRunner.Result text = CliRunner.run("check", "--config", config.toString(), "--time", at);
    assertThat(text.out())
        .containsPattern("plain: no speculation: [0-9.]+ tokens/s at 2.0 running");
  }

  @Test
  void theWeeklyDigestSaysWhatSpeculationBoughtAtTheLoadItRanMost() throws Exception {
    Digest d = week();
    RecipeWeek spec =
        d.recipes().stream().filter(r -> r.recipe().equals("spec")).findFirst().orElseThrow();
    RecipeWeek.Speedup s = spec.notes().speedup();
    // Loads 4, 5, 6 and 8, 10, 12 take a third of the time each; 4–7 comes first.
    assertThat(s.runningMin()).isEqualTo(4);
    assertThat(s.runningMax()).isEqualTo(7);
    assertThat(s.speedup()).isCloseTo(SPEC[2] / PLAIN[2], within(SPEC[2] / PLAIN[2] * 0.1));
    assertThat(s.paysUpToRunning()).isEqualTo(7);
    assertThat(d.bestPerformer()).map(RecipeWeek::recipe).contains("spec");
    DigestRenderer.Rendered rendered = new DigestRenderer(Optional.empty()).render(d);
    String text = rendered.text();
    // The mail charts it: one PNG of the speed-up by load, for the recipe with a baseline only.
    List<String> charts =
        rendered.images().keySet().stream().filter(k -> k.startsWith("speedup-")).toList();
    assertThat(charts).hasSize(1);
    byte[] png = rendered.images().get(charts.get(0));
    assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    assertThat(rendered.html()).contains("cid:" + charts.get(0));
    java.nio.file.Files.createDirectories(Path.of("target/digest"));
    java.nio.file.Files.write(Path.of("target/digest/speedup.png"), png);
    assertThat(text)
        .contains("Best performer: spec, 1.")
        .contains("× per request at 4–7 running requests (measured against plain)")
        .contains("the load it ran most, against plain; paid up to 7 running requests");
    assertThat(
            d.recipes().stream()
                .filter(r -> r.recipe().equals("upgraded"))
                .findFirst()
                .orElseThrow()
                .notes()
                .speedup()
                .note())
        .startsWith("not measured: no speedup_baseline");
  }

  @Test
  void withoutABaselineTheSpeedUpIsNotMeasuredAndTheTextSaysWhatIsAModel() throws Exception {
    JsonNode speedup = advise("--recipe", "upgraded", "--window", "9h");
    assertThat(speedup.path("measured").asBoolean()).isFalse();
    assertThat(speedup.path("reason").asText()).contains("no baseline");
    CliRunner.Result text =
        CliRunner.run(
            "advise",
            "--config",
            config.toString(),
            "--time",
            end.toString(),
            "--recipe",
            "spec",
            "--window",
            "18h");
    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("speed-up by load, measured against recipe plain (1m steps")
        .contains("pays up to 7 running requests")
        .contains("modelled from acceptance alone (E_k / (1 + c*k), not measured;")
        // One story: the headline is the by-load advice over the load it ran, not the model's.
        .containsPattern(
            "recommended: num_speculative_tokens=[0-3] for the load it ran \\(expected [0-9.]+x,"
                + " measured [0-9.]+x at k=3, averaged over 18.0 measured hours; by load below\\)")
        .doesNotContain("warning: k=4")
        // 0.8, 0.6 / 0.8, 0.4 / 0.6; 1.8 accepted of 2.8 tokens a step
        .contains("efficiency: conditional acceptance 0.80 · 0.75 · 0.67; ")
        .contains("; 64 % of output tokens were accepted drafts");
    CliRunner.Result plain =
        CliRunner.run("advise", "--config", config.toString(), "--recipe", "plain");
    assertThat(plain.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(plain.err()).contains("runs without speculation (num_speculative_tokens: 0)");
  }

  @Test
  void theDigestAndAdviseGiveOneSpeedUpForOneWindow() throws Exception {
    // Before, the digest measured the week in 6-minute steps and advise in 1-minute ones: one
    // pair read 1.42x in the mail and 1.54x in advise at the same load.
    Digest d = week();
    RecipeWeek.Speedup week =
        d.recipes().stream()
            .filter(r -> r.recipe().equals("spec"))
            .findFirst()
            .orElseThrow()
            .notes()
            .speedup();
    CliRunner.Result r =
        CliRunner.run(
            "advise",
            "--config",
            config.toString(),
            "--recipe",
            "spec",
            "--time",
            period.end().toString(),
            "--window",
            Duration.between(period.start(), period.end()).toHours() + "h",
            "--output",
            "json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode root = JSON.readTree(r.out());
    JsonNode advise = root.path("speedup");
    // The same advice: the one k for the load it ran, from the same measurement.
    RecipeWeek specWeek =
        d.recipes().stream().filter(x -> x.recipe().equals("spec")).findFirst().orElseThrow();
    assertThat(root.path("recommended_from").asText()).startsWith("measured speed-up by load");
    assertThat(specWeek.recommendedK()).isEqualTo(root.path("recommended_k").asInt());
    assertThat(specWeek.adviceBasis()).startsWith("the speed-up measured by load over the week");
    JsonNode byLoad = advise.path("by_load");
    assertThat(byLoad).hasSize(week.byLoad().size());
    for (int i = 0; i < byLoad.size(); i++) {
      assertThat(byLoad.get(i).path("speedup").asDouble())
          .as("bucket %s", byLoad.get(i))
          .isCloseTo(week.byLoad().get(i).speedup(), within(5e-4));
    }
    JsonNode most = advise.path("most_run");
    assertThat(most.path("running_min").asInt()).isEqualTo(week.runningMin());
    assertThat(most.path("running_max").asInt()).isEqualTo(week.runningMax());
    assertThat(most.path("speedup").asDouble()).isCloseTo(week.speedup(), within(5e-4));
    assertThat(most.path("low").asDouble()).isCloseTo(week.low(), within(5e-4));
    // The text says the same headline in the same words.
    CliRunner.Result text =
        CliRunner.run(
            "advise",
            "--config",
            config.toString(),
            "--recipe",
            "spec",
            "--time",
            period.end().toString(),
            "--window",
            "168h");
    assertThat(text.out()).contains(week.headline() + " (95 % ").contains("the load it ran most");
  }

  @Test
  void aWindowLongerThanTheDataDividesRatesByTheDataAndHonoursTime() throws Exception {
    // 18 h of history in a 7-day window: before, every rate was divided by the 7 days.
    JsonNode week = adviseRoot("--recipe", "spec", "--window", "7d");
    JsonNode hours = adviseRoot("--recipe", "spec", "--window", "18h");
    assertThat(week.path("covered").asText()).endsWith(" of data (asked for 1w)");
    assertThat(hours.path("covered").asText()).isEqualTo("18h");
    double rejected = hours.path("efficiency").path("rejected_draft_tokens_per_second").asDouble();
    assertThat(rejected).isPositive();
    assertThat(week.path("efficiency").path("rejected_draft_tokens_per_second").asDouble())
        .isCloseTo(rejected, within(rejected * 0.03));
    // As of --time: 9 h into the history, 9 h of data, whatever Prometheus holds after it.
    JsonNode half =
        JSON.readTree(
            CliRunner.run(
                    "advise",
                    "--config",
                    config.toString(),
                    "--recipe",
                    "spec",
                    "--window",
                    "7d",
                    "--time",
                    start.plus(HALF).toString(),
                    "--output",
                    "json")
                .out());
    assertThat(half.path("covered").asText())
        .matches("(9h|8h5\\dm[0-9s]*) of data \\(asked for 1w\\)");
  }

  /** The digest of the history's week, collected an hour after it ended. */
  private static Digest week() throws Exception {
    SpecwatchConfig c = new ConfigLoader(k -> null).load(config);
    return new DigestCollector(
            new PrometheusClient(PrometheusSettings.of(prometheus.baseUri())),
            Optional.empty(),
            Clock.fixed(period.end().plus(Duration.ofHours(1)), ZoneOffset.UTC))
        .collect(period, c.policies(), c.baselines(), List.of());
  }

  private static JsonNode adviseRoot(String... extra) throws Exception {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "advise",
                "--config",
                config.toString(),
                "--time",
                end.toString(),
                "--output",
                "json"));
    args.addAll(java.util.List.of(extra));
    CliRunner.Result r = CliRunner.run(args.toArray(String[]::new));
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }
}
