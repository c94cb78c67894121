package dev.specwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.specwatch.testing.Exposition;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SimulatorTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

  private static Simulator simulator(String yaml) {
    return new Simulator(
        ScenarioLoader.parse("s.yaml", yaml, Path.of(".")), Clock.fixed(T0, ZoneOffset.UTC));
  }

  private static final String PHASES =
      """
      models:
        - model_name: m
          num_speculative_tokens: 3
          engines: 2
          repeat: true
          phases:
            - {name: a, duration: 60s, requests_per_second: 4, output_tokens_per_request: 250,
               position_acceptance: [0.9, 0.7, 0.4]}
            - {name: idle, duration: 30s, idle: true}
            - {name: b, duration: 60s, restart: true, requests_per_second: 4,
               output_tokens_per_request: 250, position_acceptance: [0.5, 0.3, 0.2]}
      """;

  @Test
  void adaptiveSglangChangesItsActiveGaugesWithoutARestartAndItsCountersKeepGrowing() {
    Simulator sim =
        new Simulator(
            ScenarioLoader.parse(
                "s.yaml",
                "models:\n  - model_name: a\n    engine: sglang\n    version: active-k\n"
                    + "    num_speculative_tokens: 5\n    phases:\n"
                    + "      - {name: long, duration: 60s, requests_per_second: 2,"
                    + " position_acceptance: [0.9, 0.8, 0.7, 0.6, 0.5]}\n"
                    + "      - {name: short, num_speculative_tokens: 3, requests_per_second: 2,"
                    + " position_acceptance: [0.9, 0.8, 0.7]}\n",
                Path.of(".")),
            Clock.fixed(T0, ZoneOffset.UTC));
    double last = -1;
    for (int t = 10; t <= 120; t += 10) {
      var families = Exposition.parse(sim.exposition(Duration.ofSeconds(t))).families();
      double draftTokens =
          Double.parseDouble(families.get("sglang:spec_num_draft_tokens").samples().get(0).value());
      assertThat(draftTokens).as("at %ss", t).isEqualTo(t < 60 ? 6 : 4);
      double generated = 0;
      for (var sample : families.get("sglang:generation_tokens_total").samples()) {
        generated += Double.parseDouble(sample.value());
      }
      assertThat(generated).as("at %ss", t).isGreaterThan(last);
      last = generated;
    }
  }

  @Test
  void countersSatisfyVllmIdentitiesAtEveryMoment() {
    Simulator sim = simulator(PHASES);
    for (int s = 0; s <= 600; s += 7) {
      for (Simulator.EngineSample e : sim.samples(Duration.ofSeconds(s))) {
        ModelCounters c = e.counters();
        long[] perPos = c.acceptedPerPosition();
        long sum = 0;
        for (int i = 0; i < perPos.length; i++) {
          sum += perPos[i];
          if (i > 0) {
            assertThat(perPos[i]).as("non-increasing at %ss", s).isLessThanOrEqualTo(perPos[i - 1]);
          }
        }
        assertThat(sum)
            .as("sum of per-position = accepted at %ss", s)
            .isEqualTo(c.acceptedTokens());
        assertThat(perPos[0]).isLessThanOrEqualTo(c.drafts());
        assertThat(c.acceptedTokens()).isLessThanOrEqualTo(c.draftTokens());
      }
    }
  }

  @Test
  void ratesFollowThePhase() {
    Simulator sim = simulator(PHASES);
    ModelCounters at10 = sim.samples(Duration.ofSeconds(10)).get(0).counters();
    ModelCounters at50 = sim.samples(Duration.ofSeconds(50)).get(0).counters();
    // 4 req/s x 250 tokens = 1000 tokens/s; E = 1 + 2.0 = 3 -> 333.3 drafts/s; 2 engines.
    double drafts = (at50.drafts() - at10.drafts()) / 40.0;
    double accepted = (at50.acceptedTokens() - at10.acceptedTokens()) / 40.0;
    double draftTokens = (at50.draftTokens() - at10.draftTokens()) / 40.0;
    assertThat(drafts).isCloseTo(1000.0 / 3 / 2, within(0.1));
    assertThat(accepted / draftTokens).isCloseTo(2.0 / 3, within(0.001));
    assertThat(1 + accepted / drafts).isCloseTo(3.0, within(0.01));
  }

  @Test
  void idlePhaseFreezesCountersAndRestartResetsThem() {
    Simulator sim = simulator(PHASES);
    ModelCounters idleStart = sim.samples(Duration.ofSeconds(61)).get(0).counters();
    ModelCounters idleEnd = sim.samples(Duration.ofSeconds(89)).get(0).counters();
    assertThat(idleEnd.drafts()).isEqualTo(idleStart.drafts()).isPositive();
    ModelCounters afterRestart = sim.samples(Duration.ofSeconds(91)).get(0).counters();
    assertThat(afterRestart.drafts()).isLessThan(idleEnd.drafts() / 10);
    // The second cycle starts without a restart phase: counters keep growing from phase b's.
    ModelCounters cycle2 = sim.samples(Duration.ofSeconds(160)).get(0).counters();
    assertThat(cycle2.drafts())
        .isGreaterThan(sim.samples(Duration.ofSeconds(149)).get(0).counters().drafts());
  }

  @Test
  void createdGaugeMovesToTheRestart() {
    Simulator sim = simulator(PHASES);
    double before = sim.samples(Duration.ofSeconds(80)).get(0).createdEpochSeconds();
    double after = sim.samples(Duration.ofSeconds(100)).get(0).createdEpochSeconds();
    assertThat(before).isEqualTo((double) T0.getEpochSecond());
    assertThat(after).isEqualTo((double) (T0.getEpochSecond() + 90));
  }

  @Test
  void expositionLooksLikeVllm() {
    Simulator sim = simulator(PHASES);
    String text = sim.exposition(Duration.ofSeconds(30));
    assertThat(text)
        .contains("# TYPE vllm:spec_decode_num_drafts_total counter\n")
        .contains("# TYPE vllm:spec_decode_num_drafts_created gauge\n")
        .containsPattern(
            "vllm:spec_decode_num_accepted_tokens_per_pos_total\\{engine=\"1\","
                + "model_name=\"m\",position=\"2\"} \\d+\\.0\n")
        .contains(
            "vllm:spec_decode_num_drafts_created{engine=\"0\",model_name=\"m\"} "
                + "1.7960400000000000e+09\n")
        .contains("vllm:generation_tokens_total{engine=\"0\",model_name=\"m\"}")
        .contains("vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"}");
    // every sample line: name{labels} value
    Pattern line = Pattern.compile("^[a-z_:]+\\{[^}]*} [0-9.e+]+$");
    for (String l : text.split("\n")) {
      if (!l.startsWith("#")) {
        assertThat(line.matcher(l).matches()).as(l).isTrue();
      }
    }
  }

  @Test
  void rayServeExportsVllmsCountersUnderItsNamesOnlyOnceTheyHaveCounted() {
    Simulator sim =
        simulator(
            """
        models:
          - model_name: m
            engine: ray_vllm
            engines: 2
            num_speculative_tokens: 3
            phases:
              - {name: idle, duration: 30s, idle: true}
              - {name: a, requests_per_second: 4, output_tokens_per_request: 250,
                 position_acceptance: [0.9, 0.7, 0.0]}
        """);
    // Idle since the start: the wrapper skips inc(0), so no counter has a series yet.
    Exposition idle = Exposition.parse(sim.exposition(Duration.ofSeconds(20)));
    assertThat(idle.families().get("ray_vllm_spec_decode_num_drafts_total").samples()).isEmpty();
    assertThat(idle.families().get("ray_vllm_num_requests_running").samples()).hasSize(2);

    String text = sim.exposition(Duration.ofSeconds(90));
    assertThat(text)
        .doesNotContain("_created")
        .doesNotContain("vllm:")
        .containsPattern(
            "ray_vllm_spec_decode_num_accepted_tokens_per_pos_total\\{ReplicaId=\"r1\","
                + "WorkerId=\"[0-9a-f]{8}\",engine=\"0\",model_name=\"m\",position=\"1\"} [0-9.]+\n")
        // position 2 never accepted: no series
        .doesNotContain("position=\"2\"");
    Exposition e = Exposition.parse(text);
    assertThat(e.families().get("ray_vllm_spec_decode_num_drafts_total").samples()).hasSize(2);
    // 60 s x 4 req/s x 250 tokens, split between the two replicas
    assertThat(e.families().get("ray_vllm_generation_tokens_total").samples())
        .allSatisfy(s -> assertThat(Double.parseDouble(s.value())).isCloseTo(30_000, within(1.0)));
  }

  @Test
  void escapesLabelValues() {
    Simulator sim =
        simulator(
            """
        models:
          - model_name: "we\\"ird\\\\name\\nx"
            num_speculative_tokens: 1
            phases: [{requests_per_second: 1, position_acceptance: [0.5]}]
        """);
    String text = sim.exposition(Duration.ofSeconds(5));
    Matcher m = Pattern.compile("model_name=\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(text);
    assertThat(m.find()).isTrue();
    assertThat(m.group(1)).isEqualTo("we\\\"ird\\\\name\\nx");
    assertThat(List.of(text.split("\n"))).allSatisfy(l -> assertThat(l).doesNotContain("\r"));
  }
}
