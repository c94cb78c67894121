package dev.specwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import com.sun.net.httpserver.HttpServer;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.digest.DigestMailer;
import dev.specwatch.digest.DigestRenderer;
import dev.specwatch.model.Secret;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.DeliveryListener;
import dev.specwatch.notify.NotificationService;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Upstreams that quote the request back in their error (a misconfigured proxy, a debugging
 * endpoint, an SMTP server's 535): nothing specwatch sent as a credential reaches command output,
 * stored outbox entries or log lines. Before issue #12 the Prometheus bearer token and Basic
 * header, the Grafana token, the Slack webhook's path and the SMTP password all leaked.
 */
class RedactionBoundaryTest {
  static final String PROM_TOKEN = "prom-bearer-planted-4242";
  static final String PROM_PASSWORD = "prom-basic-planted-5353";
  static final String SLACK_PATH = "/services/T0/B0/slack-hook-planted-7777";
  static final String GRAFANA_TOKEN = "glsa_grafana-planted-8888";
  static final String HEADER_TOKEN = "hdr-token-planted-9999";
  static final String SMTP_PASSWORD = "smtp-pass-planted-1212";

  @TempDir Path dir;
  HttpServer echo;
  int status = 500;

  /** Answers every request with {@code status} and its headers and request line as the body. */
  @BeforeEach
  void startEcho() throws IOException {
    echo = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    echo.createContext(
        "/",
        ex -> {
          // Headers first: error excerpts are abbreviated, and the credentials are in them.
          StringBuilder body = new StringBuilder();
          String auth = ex.getRequestHeaders().getFirst("Authorization");
          if (auth != null) {
            body.append("Authorization: ").append(auth).append('\n');
          }
          ex.getRequestHeaders()
              .forEach(
                  (k, v) -> body.append(k).append(": ").append(String.join(",", v)).append('\n'));
          body.append(ex.getRequestMethod()).append(' ').append(ex.getRequestURI()).append('\n');
          byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "text/plain");
          ex.sendResponseHeaders(status, bytes.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
          }
        });
    echo.start();
  }

  @AfterEach
  void stopEcho() {
    echo.stop(0);
  }

  String echoUrl() {
    return "http://127.0.0.1:" + echo.getAddress().getPort();
  }

  Path config(String prometheus, String notifiers) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(
        dir.resolve("alerts/r.yaml"),
        "recipe: r\nmatch: {model_name: m}\nnum_speculative_tokens: 3\n"
            + "thresholds:\n  acceptance_rate: {below: 0.45}\n");
    Path file = dir.resolve("specwatch.yaml");
    Files.writeString(
        file,
        "prometheus: "
            + prometheus
            + "\npolicies: alerts\nstate: {dir: state}\n"
            + (notifiers.isEmpty() ? "" : "notifiers:\n" + notifiers));
    return file;
  }

  @Test
  void checkAgainstAnEchoingPrometheusPrintsNoCredential() throws Exception {
    for (String auth :
        List.of(
            "bearer_token: " + PROM_TOKEN,
            "basic_auth: {username: specwatch, password: " + PROM_PASSWORD + "}")) {
      Path c = config("{url: \"" + echoUrl() + "\", " + auth + "}", "");
      CliRunner.Result r = CliRunner.run("check", "--config", c.toString(), "--output", "json");
      String all = r.out() + r.err();
      assertThat(all).as("the echo was quoted, scrubbed").contains("<redacted>");
      assertThat(all)
          .doesNotContain(PROM_TOKEN)
          .doesNotContain(PROM_PASSWORD)
          .doesNotContain(b64("specwatch:" + PROM_PASSWORD));
    }
  }

  @Test
  void notifyTestAndStoredFailuresQuoteNoCredential() throws Exception {
    status = 400; // permanent: the failure is stored in outbox/failed/
    String notifiers =
        "  - {type: slack, webhook_url: \""
            + echoUrl()
            + SLACK_PATH
            + "\"}\n"
            + "  - {type: grafana, url: \""
            + echoUrl()
            + "\", token: "
            + GRAFANA_TOKEN
            + "}\n"
            + "  - {type: webhook, url: \""
            + echoUrl()
            + "/hook\", headers: {Authorization: \"Bearer "
            + HEADER_TOKEN
            + "\"}}\n";
    Path c = config("{url: \"" + echoUrl() + "\"}", notifiers);
    CliRunner.Result r = CliRunner.run("notify", "test", "--config", c.toString());
    assertNoCredential(r.out() + r.err());
    assertThat(r.out() + r.err()).contains("<redacted>");

    SpecwatchConfig config = new ConfigLoader(k -> null).load(c);
    NotificationService notifications =
        new NotificationService(config, Clock.systemUTC(), DeliveryListener.NONE);
    notifications.sink().deliver(transition());
    notifications.deliverOnce();
    StringBuilder stored = new StringBuilder();
    try (Stream<Path> files = Files.list(config.stateDir().resolve("outbox/failed"))) {
      for (Path f : files.toList()) {
        stored.append(Files.readString(f));
      }
    }
    assertThat(stored).as("three failed entries").contains("last_error");
    assertNoCredential(stored.toString());
  }

  @Test
  void anSmtpServerQuotingTheLoginIsScrubbedFromTheLog() throws Exception {
    try (ServerSocket smtp = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Thread server = new Thread(() -> serveSmtp(smtp));
      server.start();
      DigestMailer mailer =
          new DigestMailer(
              new SpecwatchConfig.Email(
                  new SpecwatchConfig.Smtp(
                      "127.0.0.1",
                      smtp.getLocalPort(),
                      SpecwatchConfig.Tls.NONE,
                      Optional.of("digest"),
                      Optional.of(Secret.of(SMTP_PASSWORD)),
                      Duration.ofSeconds(5)),
                  "specwatch@example.org",
                  List.of("team@example.org"),
                  List.of()));
      Exception failure = null;
      try {
        mailer.send(
            new DigestRenderer.Rendered("s", "<p>h</p>", "t", Map.of()),
            List.of("team@example.org"),
            Instant.now());
      } catch (Exception e) {
        failure = e;
      }
      assertThat(failure).as("the server refused the login").isNotNull();
      assertThat(String.valueOf(failure.getMessage()))
          .as("the reply quotes the encoded login")
          .contains(b64("\0digest\0" + SMTP_PASSWORD));
      String line = logLine("weekly digest not sent: {}", failure);
      assertThat(line).contains("535").contains("<redacted>");
      assertThat(line)
          .doesNotContain(b64("\0digest\0" + SMTP_PASSWORD))
          .doesNotContain(SMTP_PASSWORD);
      server.join(5000);
    }
  }

  /** A line as the daemon's text log would print it (the appender of logback.xml). */
  static String logLine(String format, Exception e) {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    @SuppressWarnings("unchecked")
    ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent> text =
        (ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent>) root.getAppender("text");
    LoggingEvent event =
        new LoggingEvent(
            RedactionBoundaryTest.class.getName(),
            root,
            Level.ERROR,
            format,
            e,
            new Object[] {e.getMessage()});
    return new String(text.getEncoder().encode(event), StandardCharsets.UTF_8);
  }

  /** Speaks enough SMTP to refuse AUTH PLAIN, quoting what the client sent. */
  static void serveSmtp(ServerSocket server) {
    try (Socket s = server.accept();
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
        PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.US_ASCII)) {
      out.print("220 echo ESMTP\r\n");
      out.flush();
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("EHLO")) {
          out.print("250-echo\r\n250 AUTH PLAIN\r\n");
        } else if (line.startsWith("AUTH")) {
          out.print("535 5.7.8 Authentication failed: " + line + "\r\n");
        } else if (line.startsWith("QUIT")) {
          out.print("221 bye\r\n");
          out.flush();
          return;
        } else {
          out.print("250 ok\r\n");
        }
        out.flush();
      }
    } catch (IOException e) {
      // the client hung up
    }
  }

  static void assertNoCredential(String text) {
    assertThat(text)
        .doesNotContain(SLACK_PATH)
        .doesNotContain("slack-hook-planted")
        .doesNotContain(GRAFANA_TOKEN)
        .doesNotContain(HEADER_TOKEN);
  }

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static Transition transition() {
    Instant now = Instant.now();
    return Transition.builder(AlertKey.parse("r/acceptance_rate"), Transition.Kind.FIRING, now)
        .sequence(1)
        .reason("acceptance_rate 0.410 below 0.450")
        .value(0.41)
        .threshold(0.45)
        .window(Duration.ofMinutes(5))
        .since(now)
        .severity(dev.specwatch.model.Severity.WARNING)
        .match(Map.of("model_name", "m"))
        .build();
  }
}
