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
}
