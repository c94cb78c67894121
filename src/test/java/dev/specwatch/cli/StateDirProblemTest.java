package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} says when {@code run} as this user would stop at the state directory; {@code
 * run} says why it stops. (A user who cannot write the parent: {@code StateDirAsNobodyIT}, which
 * runs the jar as nobody, since root may write anything.)
 */
class StateDirProblemTest {
  @TempDir Path dir;

  @Test
  void aDirectoryThatCanBeCreatedOrWrittenIsFine() throws Exception {
    assertThat(ValidateCommand.stateDirProblem(dir.resolve("state/nested"))).isEmpty();
    assertThat(ValidateCommand.stateDirProblem(dir)).isEmpty();
  }

  @Test
  void aFileWhereTheDirectoryShouldBeIsSaid() throws Exception {
    Path file = Files.writeString(dir.resolve("state"), "x");
    assertThat(ValidateCommand.stateDirProblem(file))
        .hasValue("state.dir " + file + " is not a directory");
  }

  @Test
  void runSaysWhyItStopsAtAnUnwritableDirectory() {
    String why = RunCommand.why(new java.nio.file.AccessDeniedException("/var/lib/specwatch"));
    assertThat(why)
        .startsWith("/var/lib/specwatch: permission denied for user ")
        .contains("point state.dir elsewhere");
    assertThat(
            RunCommand.why(
                new java.nio.file.FileSystemException("/x", null, "No space left on device")))
        .isEqualTo("/x: No space left on device");
  }
}
