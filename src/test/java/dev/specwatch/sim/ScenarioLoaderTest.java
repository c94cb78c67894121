package dev.specwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problem;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ScenarioLoaderTest {
  @Test
  void defaultScenarioLoads() {
    Scenario scenario = ScenarioLoader.loadDefault();
    assertThat(scenario.models())
        .extracting(ModelScenario::modelName)
        .containsExactly(
            "unsloth/Qwen3.8-27B-NVFP4",
            "deepseek-ai/DeepSeek-R1",
            "deepseek-ai/DeepSeek-V4",
            "nvidia/DeepSeek-R1-FP4",
            "llama-3.3-70b-eagle",
            "meta-llama/Llama-3.3-70B-Instruct");
    assertThat(scenario.models().get(0).phases())
        .extracting(Phase::name)
        .containsExactly("healthy", "regression", "recovered");
  }

  @Test
  void readsPhases() {
    Scenario s =
        ScenarioLoader.parse(
            "s.yaml",
            """
        models:
          - model_name: m
            num_speculative_tokens: 2
            engines: 3
            phases:
              - {duration: 30s, requests_per_second: 2, position_acceptance: [0.8, 0.5]}
              - {duration: 10s, idle: true}
              - {restart: true, num_speculative_tokens: 1, requests_per_second: 1,
                 position_acceptance: [0.7]}
        """,
            Path.of("."));
    ModelScenario m = s.models().get(0);
    assertThat(m.engines()).isEqualTo(3);
    assertThat(m.phases()).hasSize(3);
    assertThat(m.phases().get(1).idle()).isTrue();
    assertThat(m.phases().get(2).duration()).isNull();
    assertThat(m.phases().get(2).numSpeculativeTokens()).isEqualTo(1);
    assertThat(m.phases().get(0).duration()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void malformedScenarioReportsEveryErrorWithLineAndKey() {
    String yaml =
        """
        models:
          - model_name: m
            num_speculative_tokens: 3
            enignes: 2
            phases:
              - duration: 30x
                requests_per_second: 2
                position_acceptance: [0.8, 0.9, 1.5]
              - duration: 10s
                requests_per_second: 1
                num_speculative_tokens: 2
                position_acceptance: [0.5, 0.4]
          - model_name: m
            num_speculative_tokens: 1
            phases:
              - {requests_per_second: 1}
        """;
    assertThatThrownBy(() -> ScenarioLoader.parse("bad.yaml", yaml, Path.of(".")))
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e ->
                assertThat(((InvalidInputException) e).problems())
                    .extracting(Problem::toString)
                    .containsExactly(
                        "bad.yaml:4:5: models[0].enignes: unknown key (did you mean 'engines'?)",
                        "bad.yaml:6:19: models[0].phases[0].duration: expected a duration like 30s, 5m,"
                            + " 1h or 7d, got '30x'",
                        "bad.yaml:8:36: models[0].phases[0].position_acceptance[1]: must not exceed"
                            + " position 0 (0.8): vLLM accepts a position only after all earlier ones",
                        "bad.yaml:8:41: models[0].phases[0].position_acceptance[2]: must be between 0"
                            + " and 1, got 1.5",
                        "bad.yaml:11:33: models[0].phases[1].num_speculative_tokens: changing k needs a"
                            + " vLLM restart: add 'restart: true' to this phase (only SGLang's"
                            + " active-k version changes k at run time)",
                        "bad.yaml:13:17: models[1].model_name: 'm' is already used by models[0]",
                        "bad.yaml:16:9: models[1].phases[0].position_acceptance: is required for a phase"
                            + " with traffic: one acceptance (0..1) per draft position, e.g. [0.9, 0.8,"
                            + " 0.7] for k=3"));
  }

  @Test
  void anEngineTheSimulatorDoesNotServeIsNamedWithThoseItDoes() {
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "ray.yaml",
                    "models:\n  - model_name: m\n    engine: tgi\n    num_speculative_tokens: 3\n"
                        + "    phases:\n      - {name: a, requests_per_second: 1,"
                        + " position_acceptance: [0.9, 0.8, 0.7]}\n",
                    Path.of(".")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            "ray.yaml:3:13: models[0].engine: one of vllm, sglang, trtllm, llamacpp, ray_vllm");
  }

  @Test
  void missingFileIsAClearError() {
    assertThatThrownBy(() -> ScenarioLoader.load(Path.of("no/such/scenario.yaml")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no/such/scenario.yaml:1:1: file not found");
  }
}
