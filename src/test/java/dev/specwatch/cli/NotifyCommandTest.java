package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.FakeSlackApi;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotifyCommandTest {
  @TempDir Path dir;

  @Test
  void reportsEachNotifierAndTheExactFailureWithoutSecrets() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      slack.enqueue(200, "{\"ok\":true,\"channel\":\"C1\",\"ts\":\"1.1\"}", null);
      slack.enqueue(200, "{\"ok\":false,\"error\":\"invalid_auth\"}", null);
      Files.createDirectories(dir.resolve("alerts"));
      Path config = dir.resolve("specwatch.yaml");
      Files.writeString(
          config,
          "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n"
              + "state: {dir: state}\nnotifiers:\n"
              + "  - {type: slack, token: xoxb-good-token-1, channel: \"#a\", api_url: \""
              + slack.apiUrl()
              + "\"}\n"
              + "  - {type: slack, name: other, token: xoxb-bad-token-2, channel: \"#b\", api_url: \""
              + slack.apiUrl()
              + "\"}\n"
              + "  - {type: log}\n");
      MainTest.Result r = MainTest.run("notify", "test", "--config", config.toString());
      assertThat(r.exit()).isEqualTo(1);
      assertThat(r.out())
          .isEqualTo("slack: ok\nother: FAILED: Slack answered invalid_auth\n" + "log: ok\n");
      assertThat(r.out() + r.err())
          .doesNotContain("xoxb-good-token-1")
          .doesNotContain("xoxb-bad-token-2");
      assertThat(slack.calls()).hasSize(2);
      assertThat(slack.calls().get(0).params().get("text"))
          .startsWith("[TEST] Test message from `specwatch notify test`: not an alert");

      MainTest.Result one =
          MainTest.run("notify", "test", "--config", config.toString(), "--notifier", "log");
      assertThat(one.exit()).isZero();
      assertThat(one.out()).isEqualTo("log: ok\n");
    }
  }
}
