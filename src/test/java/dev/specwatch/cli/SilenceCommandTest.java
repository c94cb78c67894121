package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SilenceCommandTest {
  @TempDir Path dir;

  @Test
  void addListAndExpireASilence() throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(
        config,
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n" + "state: {dir: state}\n");
    MainTest.Result added =
        MainTest.run(
            "silence",
            "add",
            "--config",
            config.toString(),
            "--recipe",
            "qwen*",
            "--rule",
            "regression",
            "--duration",
            "2h",
            "--comment",
            "new build",
            "--author",
            "ops");
    assertThat(added.exit()).as(added.err()).isZero();
    String id = added.out().replaceAll("^silence ([0-9a-f]+):.*\\s*$", "$1");
    assertThat(Files.exists(dir.resolve("state/silences.json"))).isTrue();

    MainTest.Result listed = MainTest.run("silence", "list", "--config", config.toString());
    assertThat(listed.out())
        .contains(id)
        .contains("qwen*")
        .contains("regression")
        .contains("new build")
        .contains("(ops)");

    assertThat(MainTest.run("silence", "expire", "--config", config.toString(), id).exit())
        .isZero();
    assertThat(MainTest.run("silence", "list", "--config", config.toString()).out())
        .isEqualTo("no active silences\n");
    assertThat(MainTest.run("silence", "list", "--config", config.toString(), "--all").out())
        .contains("[expired]");
    assertThat(MainTest.run("silence", "expire", "--config", config.toString(), id).exit())
        .isEqualTo(2);
  }
}
