package dev.specwatch.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.cli.CliRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * From a directory of spark-vllm-docker recipes (all three shapes of speculative config, one
 * without speculation, three broken ones) to policies that validate; a re-import after the recipe's
 * k changed takes the new k and keeps what the user edited.
 */
class RecipeImportTest {
  @TempDir Path dir;
  Path recipes;
  Path alerts;

  static final String HEADER =
      """
      recipe_version: 1
      description: test recipe
      container: vllm-node
      cluster_only: false
      solo_only: false
      build_args: {}
      mods: []
      env: {VLLM_USE_V1: "1"}
      """;

  @BeforeEach
  void recipes() throws Exception {
    recipes = Files.createDirectories(dir.resolve("recipes"));
    alerts = dir.resolve("alerts");
    write(
        "qwen-mtp.yaml",
        HEADER
            + """
            name: Qwen3.8 27B NVFP4 + MTP
            model: unsloth/Qwen3.8-27B-NVFP4
            defaults:
              port: 8000
              host: 0.0.0.0
              tensor_parallel: 1
              gpu_memory_utilization: 0.9
              max_model_len: 32768
            command: |
              vllm serve unsloth/Qwen3.8-27B-NVFP4 \\
                --host {host} --port {port} \\
                --tensor-parallel-size {tensor_parallel} \\
                --gpu-memory-utilization {gpu_memory_utilization} \\
                --max-model-len {max_model_len} \\
                --speculative-config '{{"method":"mtp","num_speculative_tokens":3}}'
            """);
    write(
        "deepseek-r1.yaml",
        HEADER
            + """
            name: DeepSeek-R1 with its MTP module
            model: deepseek-ai/DeepSeek-R1
            defaults:
              port: 8001
              speculative_config: '{"method":"deepseek_mtp","num_speculative_tokens":1}'
            command: >-
              vllm serve deepseek-ai/DeepSeek-R1 --port {port}
              --served-model-name deepseek-r1 ds-r1
              --speculative-config '{speculative_config}'
            """);
    write(
        "glm-dotted.yaml",
        HEADER
            + """
            name: GLM with dotted flags
            model: zai-org/GLM-4.6-FP8
            defaults: {port: 8002}
            command: "vllm serve zai-org/GLM-4.6-FP8 --port {port} --speculative-config.method mtp --speculative-config.num_speculative_tokens 2"
            """);
    write(
        "llama-plain.yaml",
        HEADER
            + """
            name: Llama without speculation
            model: meta-llama/Llama-3.3-70B-Instruct
            defaults: {port: 8003}
            command: vllm serve meta-llama/Llama-3.3-70B-Instruct --port {port}
            """);
    write(
        "broken-json.yaml",
        HEADER
            + """
            name: bad JSON
            model: x/y
            defaults:
              speculative_config: '{"method":"mtp","num_speculative_tokens":'
            command: vllm serve x/y --speculative-config '{speculative_config}'
            """);
    write(
        "broken-placeholder.yaml",
        HEADER
            + """
            name: a placeholder without a default
            model: x/z
            defaults: {port: 8004}
            command: vllm serve x/z --port {port} --max-model-len {max_model_len}
            """);
    write("broken-yaml.yaml", "name: [unclosed\ncommand: vllm serve a/b\n");
  }

  void write(String name, String text) throws Exception {
    Files.writeString(recipes.resolve(name), text);
  }

  Path config() throws Exception {
    Path c = dir.resolve("specwatch.yaml");
    Files.writeString(c, "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n");
    return c;
  }

  @Test
  void dsparkAndDflashRecipesWithTheirKAsAPlaceholderInsideTheJson() throws Exception {
    // The newer recipes' shape (issue 38): the method is dspark or dflash and k is a placeholder
    // inside the doubled-brace JSON, filled from defaults by run-recipe.py's str.format.
    Path fresh = Files.createDirectories(dir.resolve("fresh"));
    Files.writeString(
        fresh.resolve("qwen-dspark.yaml"),
        HEADER
            + """
            name: Qwen3.8 27B + DSpark
            model: unsloth/Qwen3.8-27B-NVFP4
            defaults:
              port: 8000
              num_speculative_tokens: 5
            command: |
              vllm serve unsloth/Qwen3.8-27B-NVFP4 --port {port} \\
                --speculative-config '{{"method":"dspark","num_speculative_tokens":{num_speculative_tokens},"draft_tensor_parallel_size":1}}'
            """);
    Files.writeString(
        fresh.resolve("gemma-dflash.yaml"),
        HEADER
            + """
            name: Gemma + DFlash
            model: google/gemma-4-31b-it
            defaults: {port: 8001, num_speculative_tokens: 7}
            command: >-
              vllm serve google/gemma-4-31b-it --port {port}
              --speculative-config '{{"method": "dflash", "num_speculative_tokens": {num_speculative_tokens}}}'
            """);
    CliRunner.Result r =
        CliRunner.run(
            "policies", "import", "--recipes", fresh.toString(), "--out", alerts.toString());
    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    assertThat(r.err()).doesNotContain("warning");
    assertThat(Files.readString(alerts.resolve("qwen-dspark.yaml")))
        .contains("num_speculative_tokens: 5\n")
        .contains("method: dspark");
    assertThat(Files.readString(alerts.resolve("gemma-dflash.yaml")))
        .contains("model_name: google/gemma-4-31b-it\n")
        .contains("num_speculative_tokens: 7\n")
        .contains("method: dflash");
  }

  @Test
  void importsEveryShapeSkipsThePlainOneAndNamesTheBrokenOnes() throws Exception {
    CliRunner.Result r =
        CliRunner.run(
            "policies",
            "import",
            "--recipes",
            recipes.toString(),
            "--out",
            alerts.toString(),
            "--job",
            "vllm");

    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
    assertThat(r.err())
        .contains(recipes.resolve("broken-json.yaml") + ":12:")
        .contains("defaults.speculative_config: the speculative config is not valid JSON")
        .contains(recipes.resolve("broken-placeholder.yaml") + ":12:")
        .contains("placeholder {max_model_len} has no value in defaults")
        .contains(recipes.resolve("broken-yaml.yaml") + ":2:")
        .contains("not valid YAML");
    assertThat(r.out()).contains("skipped " + recipes.resolve("llama-plain.yaml"));
    try (var files = Files.list(alerts)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
          .containsExactly("deepseek-r1.yaml", "glm-dotted.yaml", "qwen-mtp.yaml");
    }
    assertThat(Files.readString(alerts.resolve("qwen-mtp.yaml")))
        .contains("recipe: qwen-mtp\n")
        .contains("  model_name: unsloth/Qwen3.8-27B-NVFP4\n  job: vllm\n")
        .contains("num_speculative_tokens: 3\n")
        .contains("imported_from: {recipe: ../recipes/qwen-mtp.yaml, method: mtp}");
    assertThat(Files.readString(alerts.resolve("deepseek-r1.yaml")))
        .as("the first --served-model-name")
        .contains("model_name: deepseek-r1\n")
        .contains("num_speculative_tokens: 1\n")
        .contains("method: deepseek_mtp");
    assertThat(Files.readString(alerts.resolve("glm-dotted.yaml")))
        .contains("model_name: zai-org/GLM-4.6-FP8\n")
        .contains("num_speculative_tokens: 2\n");

    CliRunner.Result valid = CliRunner.run("validate", "--config", config().toString());
    assertThat(valid.exit()).as(valid.out() + valid.err()).isZero();
    assertThat(valid.out())
        .contains("3 recipe(s)")
        .contains("from ../recipes/qwen-mtp.yaml (mtp)")
        .doesNotContain("warning");
  }

  @Test
  void subfoldersAreImportedCollisionsLoopsAndMissingKeysNamedSingleBracesWarned()
      throws Exception {
    Path cluster = Files.createDirectories(recipes.resolve("4x-spark-cluster"));
    Files.writeString(
        cluster.resolve("glm-cluster.yaml"),
        HEADER
            + """
            name: GLM on four Sparks
            command: |
              vllm serve zai-org/GLM-4.6-FP8 --tensor-parallel-size 4 \\
                --speculative-config '{{"method":"mtp","num_speculative_tokens":2}}'
            """);
    // The same file name as a recipe one folder up: both would be policy qwen-mtp.
    Files.writeString(
        cluster.resolve("qwen-mtp.yaml"),
        HEADER
            + "name: Qwen on four Sparks\ncommand: vllm serve unsloth/Qwen3.8-27B-NVFP4"
            + " --speculative-config.method mtp --speculative-config.num_speculative_tokens 4\n");
    // The form docs/RECIPES.md once showed: specwatch reads it, run-recipe.py's str.format fails.
    Files.writeString(
        cluster.resolve("single-brace.yaml"),
        HEADER
            + """
            name: single braces
            command: |
              vllm serve a/single \\
                --speculative-config '{"method":"mtp","num_speculative_tokens":1}'
            """);
    Files.writeString(
        cluster.resolve("no-container.yaml"),
        "recipe_version: 1\nname: x\ncommand: vllm serve a/b\n");
    Files.createSymbolicLink(cluster.resolve("loop"), recipes);
    Files.createSymbolicLink(cluster.resolve("gone.yaml"), dir.resolve("nowhere.yaml"));
    Files.createDirectories(recipes.resolve(".git")).resolve("x.yaml").toFile().createNewFile();

    CliRunner.Result r =
        CliRunner.run(
            "policies", "import", "--recipes", recipes.toString(), "--out", alerts.toString());

    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
    assertThat(r.out())
        .contains(
            "created "
                + alerts.resolve("glm-cluster.yaml")
                + ": model_name zai-org/GLM-4.6-FP8, k=2")
        .contains("created " + alerts.resolve("single-brace.yaml"));
    assertThat(r.err())
        .contains(
            cluster.resolve("qwen-mtp.yaml")
                + ":1:1: policy qwen-mtp would also come from "
                + recipes.resolve("qwen-mtp.yaml"))
        .contains(recipes.resolve("qwen-mtp.yaml") + ":1:1: policy qwen-mtp would also come from")
        .contains(cluster.resolve("loop") + ":1:1: a symlink loop")
        .contains(cluster.resolve("gone.yaml") + ":1:1: a broken symlink")
        .contains(
            cluster.resolve("no-container.yaml")
                + ":1:1: container: is required by spark-vllm-docker's run-recipe.py")
        .contains(
            cluster.resolve("single-brace.yaml")
                + ":12:1: warning: command: a single brace ({\"method\":\"mtp\",\"num_speculative_tokens\":1}')"
                + " makes run-recipe.py's str.format fail")
        .doesNotContain(".git")
        .doesNotContain("glm-cluster.yaml:");
    assertThat(alerts.resolve("qwen-mtp.yaml")).as("neither colliding recipe").doesNotExist();
    assertThat(Files.readString(alerts.resolve("glm-cluster.yaml")))
        .contains("imported_from: {recipe: ../recipes/4x-spark-cluster/glm-cluster.yaml");
  }

  @Test
  void aReimportTakesTheNewKAndKeepsWhatTheUserEdited() throws Exception {
    CliRunner.run(
        "policies", "import", "--recipes", recipes.toString(), "--out", alerts.toString());
    Path policy = alerts.resolve("qwen-mtp.yaml");
    String edited =
        Files.readString(policy)
                .replace(
                    "  change: {min_relative_drop: 0.10}\n",
                    "  acceptance_rate: {below: 0.41, clear_above: 0.46}   # tuned by hand\n")
            + "for: 10m\n";
    Files.writeString(policy, edited);
    Path recipe = recipes.resolve("qwen-mtp.yaml");
    Files.writeString(
        recipe,
        Files.readString(recipe)
            .replace("\"num_speculative_tokens\":3", "\"num_speculative_tokens\":4"));

    CliRunner.Result drift = CliRunner.run("validate", "--config", config().toString());
    assertThat(drift.out())
        .contains("warning: ")
        .contains("num_speculative_tokens is 3, the recipe has 4");

    CliRunner.Result dry =
        CliRunner.run(
            "policies",
            "import",
            "--recipes",
            recipes.toString(),
            "--out",
            alerts.toString(),
            "--dry-run");
    assertThat(dry.out())
        .contains("would have updated " + policy)
        .contains("-num_speculative_tokens: 3\n+num_speculative_tokens: 4\n");
    assertThat(Files.readString(policy)).as("a dry run writes nothing").isEqualTo(edited);

    CliRunner.run(
        "policies", "import", "--recipes", recipes.toString(), "--out", alerts.toString());
    assertThat(Files.readString(policy))
        .isEqualTo(edited.replace("num_speculative_tokens: 3\n", "num_speculative_tokens: 4\n"));
    CliRunner.Result valid = CliRunner.run("validate", "--config", config().toString());
    assertThat(valid.exit()).isZero();
    assertThat(valid.out()).doesNotContain("warning");
  }
}
