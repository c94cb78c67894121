package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recipe and file names discover --write makes from model names. */
class DiscoverSlugTest {
  @TempDir Path dir;

  @Test
  void aModelNameTooLongForAFileNameIsCutAndKeptApartByItsHash() throws Exception {
    assertThat(DiscoverCommand.slug("unsloth/Qwen3.8-27B-NVFP4"))
        .isEqualTo("unsloth-qwen3.8-27b-nvfp4");
    String a = "org/" + "very-long-model-name-".repeat(20) + "a";
    String b = "org/" + "very-long-model-name-".repeat(20) + "b";
    String sa = DiscoverCommand.slug(a);
    String sb = DiscoverCommand.slug(b);
    assertThat(sa).hasSizeLessThanOrEqualTo(DiscoverCommand.MAX_SLUG).startsWith("org-very-long");
    assertThat(sa).isNotEqualTo(sb).matches("[a-z0-9._-]+-[0-9a-f]{8}");
    assertThat(DiscoverCommand.slug(a)).as("stable").isEqualTo(sa);
    // Before, the name went whole into the file name: past 255 bytes the write failed half-way.
    assertThat(Files.writeString(dir.resolve(sa + ".yaml"), "recipe: x\n")).exists();
  }
}
