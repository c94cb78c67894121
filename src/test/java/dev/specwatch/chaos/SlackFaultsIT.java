package dev.specwatch.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault suite, receiver and client side (docs/RELIABILITY.md): each test scripts one fault
 * against the real daemon and asserts nothing is lost or sent twice. Tests tagged {@code chaos}
 * take the receivers' call deadlines (15 s) several times over and run in {@code make chaos} only.
 */
class SlackFaultsIT {
  @TempDir Path dir;

  @Test
  void baselineWithHalfSentRequestsHeldOpen() throws Exception {
    try (ChaosRun run = ChaosRun.start(dir)) {
      run.at(Duration.ofSeconds(12));
      List<Socket> stalled = new ArrayList<>();
      int failed = 0;
      try {
        for (int i = 0; i < 2; i++) {
          Socket s = new Socket("127.0.0.1", run.port);
          s.getOutputStream()
              .write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
          stalled.add(s);
        }
        for (int i = 0; i < 40; i++) {
          try {
            if (run.get("/healthz").statusCode() != 200
                || run.get("/metrics").statusCode() != 200) {
              failed++;
            }
          } catch (java.io.IOException e) {
            failed++;
          }
          Thread.sleep(250);
        }
      } finally {
        for (Socket s : stalled) {
          s.close();
        }
      }
      ChaosRun.Figures f =
          run.finish(
              "none (baseline); 2 half-sent HTTP requests held open",
              "/healthz+/metrics probes failed: " + failed + "/40");
      assertThat(failed).isZero();
      assertThat(f.lost()).isZero();
      assertThat(f.duplicated()).isZero();
    }
  }

  @Test
  void slackAnswers429ThenServerErrors() throws Exception {
    try (ChaosRun run = ChaosRun.start(dir)) {
      run.slack.enqueue(429, "{\"ok\":false,\"error\":\"ratelimited\"}", "2");
      run.slack.enqueue(429, "{\"ok\":false,\"error\":\"ratelimited\"}", "2");
      run.slack.enqueue(500, "{\"ok\":false,\"error\":\"internal_error\"}", null);
      run.slack.enqueue(503, "<html>bad gateway</html>", null);
      ChaosRun.Figures f = run.finish("Slack 429 ×2 (Retry-After 2 s), then 500 and 503", "");
      assertThat(f.lost()).isZero();
      assertThat(f.duplicated()).isZero();
    }
  }

  @Test
  void reloadWhileTheSlackPostIsInFlight() throws Exception {
    try (ChaosRun run = ChaosRun.start(dir)) {
      run.slack.hang();
      run.awaitFiringAttempt();
      int reloaded = run.reload().statusCode();
      Thread.sleep(3000);
      run.slack.release(); // Slack processes the held post: it was accepted, only slow
      ChaosRun.Figures f = run.finish("config reload while the Slack post is in flight", "");
      assertThat(reloaded).isEqualTo(200);
      assertThat(f.lost()).isZero();
      assertThat(f.duplicated()).as("before #12: posted twice").isZero();
    }
  }

  @Test
  @Tag("chaos")
  void twoSlackNotifiersOneAlertWithA429() throws Exception {
    try (ChaosRun run = ChaosRun.start(dir, false, true)) {
      run.slack.enqueue(429, "{\"ok\":false,\"error\":\"ratelimited\"}", "2");
      ChaosRun.Figures f =
          run.finish(
              "two Slack notifiers (two channels, two tokens), one alert; one 429",
              "each channel: its own post, edit and reply, with its own token");
      assertThat(f.lost()).as("before: #mtp's message was never resolved").isZero();
      assertThat(f.duplicated()).as("before: #team-b got an extra [RESOLVED] post").isZero();
    }
  }

  @Test
  @Tag("chaos")
  void slackHangsFor25Seconds() throws Exception {
    try (ChaosRun run = ChaosRun.start(dir)) {
      run.slack.hang(true); // held requests are never processed: 503 when released
      run.at(Duration.ofSeconds(35));
      run.slack.release();
      ChaosRun.Figures f =
          run.finish(
              "Slack accepts connections and hangs 10–35 s",
              "the webhook's delay shows the notifiers are isolated");
      assertThat(f.lost()).isZero();
      assertThat(f.duplicated()).isZero();
      assertThat(f.webhookFireDelay()).as("not held up by Slack").isLessThan(f.fireDelay());
    }
  }

  @Test
  @Tag("chaos")
  void slackTricklesOneByteEveryFiveSeconds() throws Exception {
    try (ChaosRun run = ChaosRun.start(dir)) {
      run.slack.trickle(Duration.ofSeconds(5));
      run.at(Duration.ofSeconds(35));
      run.slack.release();
      ChaosRun.Figures f =
          run.finish(
              "Slack trickles its answer, 1 byte / 5 s, until 35 s",
              "each call ends at the 15 s call deadline");
      assertThat(f.lost()).isZero();
      assertThat(f.duplicated()).isZero();
      assertThat(f.webhookFireDelay()).as("not held up by Slack").isLessThan(f.fireDelay());
    }
  }
}
