package dev.specwatch.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.yaml.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What `run` would reject, `validate` rejects first, with file:line and key. */
class ValidateGapsTest {
  @TempDir Path dir;

  private Path config(String extra) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Path file = dir.resolve("specwatch.yaml");
    Files.writeString(file, "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n" + extra);
    return file;
  }

  @Test
  void anEmptySecretIsNamedWithItsKeyAndNeverPrinted() throws IOException {
    Path file = config("server:\n  bearer_token: ${TOKEN}\n");
    assertThatThrownBy(() -> new ConfigLoader(Map.of("TOKEN", "")::get).load(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(file + ":4:17: server.bearer_token: is empty");
  }

  @Test
  void cronFieldsOutOfRangeAreRejected() throws IOException {
    Path file = config("digest:\n  schedule: \"0 0 99 ? * MON\"\n");
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("digest.schedule: hours 99 is out of range 0..23");
    assertThat(Converters.cronOutOfRange("0 0/15 9-17 ? * MON-FRI")).isEmpty();
    assertThat(Converters.cronOutOfRange("0 0 9 ? * 6#3")).isEmpty();
    assertThat(Converters.cronOutOfRange("0 0 9 ? * 6#7"))
        .hasValueSatisfying(m -> assertThat(m).isEqualTo("day-of-week #7 must be #1..#5"));
    assertThat(Converters.cronOutOfRange("0 61 9 ? * MON"))
        .hasValueSatisfying(m -> assertThat(m).startsWith("minutes 61 is out of range 0..59"));
  }

  @Test
  void aFileThatIsNotUtf8SaysSo() throws IOException {
    Path file = dir.resolve("latin1.yaml");
    Files.write(file, new byte[] {'a', ':', ' ', (byte) 0xE9, '\n'});
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(file))
        .hasMessageContaining(file + ":1:1: cannot read: the file is not UTF-8 text");
  }

  @Test
  void aDirectoryGivenAsTheConfigSaysSo() {
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(dir))
        .hasMessageContaining("cannot read: is a directory, not a file");
  }

  @Test
  void aScheduleThatNeverFiresIsRejectedBeforeQuartzRefusesIt() throws IOException {
    Path file = config("digest:\n  schedule: \"0 0 9 30 2 ?\"\n  slack_channel: \"#x\"\n");
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(file + ":4:13: digest.schedule: \"0 0 9 30 2 ?\" never fires");
  }

  /**
   * Paths that would hang {@code validate} (a FIFO blocks the reader), exhaust its memory ({@code
   * /dev/zero} never ends) or print raw exception text (a symlink loop): each is one line with the
   * file and the reason, and every other policy is still read.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60) // a hang fails here instead of stalling the build
  void devicesFifosAndSymlinkLoopsAreNamedNotRead() throws Exception {
    Path file = config("");
    Path alerts = dir.resolve("alerts");
    Files.createSymbolicLink(alerts.resolve("zero.yaml"), Path.of("/dev/zero"));
    Process mkfifo = new ProcessBuilder("mkfifo", alerts.resolve("fifo.yaml").toString()).start();
    assertThat(mkfifo.waitFor()).isZero();
    Files.createSymbolicLink(alerts.resolve("loop1.yaml"), alerts.resolve("loop2.yaml"));
    Files.createSymbolicLink(alerts.resolve("loop2.yaml"), alerts.resolve("loop1.yaml"));
    Files.createSymbolicLink(alerts.resolve("gone.yaml"), dir.resolve("nowhere.yaml"));
    Files.write(
        alerts.resolve("huge.yaml"), new byte[(int) dev.specwatch.model.TextFiles.MAX_BYTES + 1]);
    Files.writeString(
        alerts.resolve("fine.yaml"),
        "recipe: fine\nmatch: {model_name: m}\nnum_speculative_tokens: 1\nthresholds: {typo: 1}\n");
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            alerts.resolve("zero.yaml")
                + ":1:1: cannot read: not a regular file (a device, FIFO or socket)")
        .hasMessageContaining(
            alerts.resolve("fifo.yaml")
                + ":1:1: cannot read: not a regular file (a device, FIFO or socket)")
        .hasMessageContaining(alerts.resolve("loop1.yaml") + ":1:1: cannot read: a symlink loop")
        .hasMessageContaining(alerts.resolve("gone.yaml") + ":1:1: cannot read: a broken symlink")
        .hasMessageContaining(alerts.resolve("huge.yaml") + ":1:1: cannot read: 4194305 bytes")
        .hasMessageContaining(alerts.resolve("fine.yaml") + ":4:")
        .hasMessageNotContaining("Exception");
  }

  @Test
  void recipeNamesAreTextWithoutControlCharactersAndNotSpecwatchsOwn() throws IOException {
    Path file = config("");
    Path alerts = dir.resolve("alerts");
    String body = "match: {model_name: m%d}\nnum_speculative_tokens: 1\n";
    Files.writeString(alerts.resolve("a.yaml"), "recipe: \"line\\nbreak\"\n" + body.formatted(1));
    Files.writeString(alerts.resolve("b.yaml"), "recipe: specwatch\n" + body.formatted(2));
    Files.writeString(alerts.resolve("c.yaml"), "recipe: \" padded\"\n" + body.formatted(3));
    Files.writeString(alerts.resolve("d.yaml"), "recipe: team-a/qwen\n" + body.formatted(4));
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            alerts.resolve("a.yaml") + ":1:9: recipe: contains a control character")
        .hasMessageContaining(alerts.resolve("b.yaml") + ":1:9: recipe: 'specwatch' is reserved")
        .hasMessageContaining(
            alerts.resolve("c.yaml") + ":1:9: recipe: starts or ends with white space")
        .hasMessageNotContaining("d.yaml");
  }
}
