package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
  record Result(int exit, String out, String err) {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Result(exit, out.toString(), err.toString());
  }

  @Test
  void helpListsTheCommands() {
    Result r = run("--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("simulate").contains("rules").contains("Exit codes");
  }

  @Test
  void versionNamesTheProject() {
    Result r = run("--version");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).startsWith("specwatch ");
  }

  @Test
  void unknownOptionIsAUsageError() {
    Result r = run("simulate", "--nope");
    assertThat(r.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(r.err()).contains("Unknown option: '--nope'");
  }

  @Test
  void simulateWithAMalformedScenarioExits2NamingFileLineAndKey(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("broken.yaml");
    Files.writeString(
        file,
        "models:\n  - model_name: m\n    num_speculative_tokens: three\n"
            + "    phases: [{requests_per_second: 1, position_acceptance: [0.5]}]\n");
    Result r = run("simulate", "--scenario", file.toString(), "--print-at", "10s");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err())
        .contains(
            file
                + ":3:29: models[0].num_speculative_tokens: expected a whole"
                + " number, got 'three'");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void simulatePrintsTheExpositionAtAnOffset() {
    Result r = run("simulate", "--print-at", "90s");
    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains(
            "vllm:spec_decode_num_drafts_total{engine=\"0\","
                + "model_name=\"unsloth/Qwen3.8-27B-NVFP4\"}")
        .contains(
            "vllm:spec_decode_num_drafts_total{engine=\"1\","
                + "model_name=\"deepseek-ai/DeepSeek-R1\"}");
  }

  @Test
  void rulesRenderPrintsTheRecordingRules() {
    Result r = run("rules", "render");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).startsWith("# Prometheus recording rules").contains("groups:");
  }
}
