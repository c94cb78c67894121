package dev.specwatch.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.Silence;
import dev.specwatch.model.Secret;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Who may read and write through the web UI and the API: with a bearer token the pages need the
 * /login session and the API the token; forms need their CSRF token; without a token writes come
 * from loopback. The session cookie is never the token.
 */
class WebAccessTest {
  static final String TOKEN = "ui-token-planted-7788";
  final HttpClient http =
      HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

  /** A source that keeps silences in memory. */
  static final class Silences extends StatusServerTest.Down {
    final List<Silence> added = new ArrayList<>();

    @Override
    public List<Silence> silences() {
      return List.copyOf(added);
    }

    @Override
    public Silence addSilence(
        String recipe, Optional<String> rule, Duration d, String comment, String author) {
      Silence s =
          new Silence(
              "s" + (added.size() + 1),
              recipe,
              rule,
              Instant.now(),
              Instant.now().plus(d),
              comment,
              author);
      added.add(s);
      return s;
    }

    @Override
    public boolean expireSilence(String id) {
      return added.removeIf(s -> s.id().equals(id));
    }
  }

  HttpResponse<String> send(
      int port, String method, String path, String body, String type, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (type != null) {
      r.header("Content-Type", type);
    }
    for (int i = 0; i < headers.length; i += 2) {
      r.header(headers[i], headers[i + 1]);
    }
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String csrf(String page) {
    Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(m.find()).as("the form carries a CSRF token").isTrue();
    return m.group(1);
  }

  @Test
  void withATokenPagesNeedTheLoginAndFormsTheirCsrfToken() throws Exception {
    Silences source = new Silences();
    try (StatusServer server =
        StatusServer.start(
            new InetSocketAddress("127.0.0.1", 0), Optional.of(Secret.of(TOKEN)), source)) {
      int port = server.port();
      HttpResponse<String> anonymous = send(port, "GET", "/silences", null, null);
      assertThat(anonymous.statusCode()).isEqualTo(303);
      assertThat(anonymous.headers().firstValue("Location")).contains("/login");

      String form = "application/x-www-form-urlencoded";
      assertThat(send(port, "POST", "/login", "token=wrong", form).statusCode()).isEqualTo(401);
      HttpResponse<String> login = send(port, "POST", "/login", "token=" + TOKEN, form);
      assertThat(login.statusCode()).isEqualTo(303);
      String cookie = login.headers().firstValue("Set-Cookie").orElseThrow();
      assertThat(cookie).contains("HttpOnly").contains("SameSite=Strict").doesNotContain(TOKEN);
      String session = cookie.substring(0, cookie.indexOf(';'));

      HttpResponse<String> page = send(port, "GET", "/silences", null, null, "Cookie", session);
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).doesNotContain(TOKEN);
      String body = "recipe=qwen&duration=1h&comment=upgrade";
      assertThat(send(port, "POST", "/silences", body, form, "Cookie", session).statusCode())
          .as("no CSRF token: a cross-site form")
          .isEqualTo(403);
      assertThat(
              send(port, "POST", "/silences", body + "&csrf=" + csrf(page.body()), form)
                  .statusCode())
          .as("a CSRF token without the session")
          .isEqualTo(403);
      HttpResponse<String> created =
          send(
              port,
              "POST",
              "/silences",
              body + "&csrf=" + csrf(page.body()),
              form,
              "Cookie",
              session);
      assertThat(created.statusCode()).isEqualTo(303);
      assertThat(source.added).extracting(Silence::comment).containsExactly("upgrade");
      assertThat(source.added.get(0).createdBy()).isEqualTo("web UI");

      String json = "{\"recipe\": \"ds\", \"duration\": \"30m\", \"comment\": \"api\"}";
      assertThat(send(port, "POST", "/api/v1/silences", json, "application/json").statusCode())
          .isEqualTo(401);
      assertThat(
              send(
                      port,
                      "POST",
                      "/api/v1/silences",
                      json,
                      "application/json",
                      "Authorization",
                      "Bearer " + TOKEN)
                  .statusCode())
          .isEqualTo(201);
      assertThat(
              send(
                      port,
                      "POST",
                      "/api/v1/silences",
                      "{\"recipe\": \"ds\"}",
                      "application/json",
                      "Authorization",
                      "Bearer " + TOKEN)
                  .body())
          .contains("comment is required");
      assertThat(
              send(
                      port,
                      "DELETE",
                      "/api/v1/silences/s2",
                      null,
                      null,
                      "Authorization",
                      "Bearer " + TOKEN)
                  .statusCode())
          .isEqualTo(200);
      assertThat(
              send(
                      port,
                      "DELETE",
                      "/api/v1/silences/s9",
                      null,
                      null,
                      "Authorization",
                      "Bearer " + TOKEN)
                  .statusCode())
          .isEqualTo(404);
      assertThat(send(port, "GET", "/api/v1/silences", null, null, "Cookie", session).statusCode())
          .as("the API takes the token, not the UI's cookie")
          .isEqualTo(401);
    }
  }

  @Test
  void withoutATokenReadsAreOpenAndLoopbackMayWrite() throws Exception {
    Silences source = new Silences();
    try (StatusServer server =
        StatusServer.start(new InetSocketAddress("127.0.0.1", 0), Optional.empty(), source)) {
      int port = server.port();
      assertThat(send(port, "GET", "/", null, null).statusCode()).isEqualTo(200);
      String json = "{\"recipe\": \"ds\", \"duration\": \"30m\", \"comment\": \"api\"}";
      assertThat(send(port, "POST", "/api/v1/silences", json, "application/json").statusCode())
          .isEqualTo(201);
      String page = send(port, "GET", "/silences", null, null).body();
      assertThat(
              send(
                      port,
                      "POST",
                      "/silences/s1",
                      "csrf=" + csrf(page),
                      "application/x-www-form-urlencoded")
                  .statusCode())
          .isEqualTo(303);
      assertThat(source.added).isEmpty();
      assertThat(send(port, "GET", "/login", null, null).body()).contains("Bearer token");
      try (java.net.Socket raw = new java.net.Socket("127.0.0.1", port)) {
        raw.getOutputStream()
            .write(
                "GET /silences?recipe=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        String status =
            new String(
                raw.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(status).as("a malformed query").isEqualTo("HTTP/1.1 400");
      }
      assertThat(
              send(port, "POST", "/api/v1/silences", "x".repeat(70_000), "application/json")
                  .statusCode())
          .isEqualTo(413);
    }
  }

  @Test
  void withoutATokenAPageOfAnotherSiteCannotWriteThroughTheOperatorsBrowser() throws Exception {
    Silences source = new Silences();
    try (StatusServer server =
        StatusServer.start(new InetSocketAddress("127.0.0.1", 0), Optional.empty(), source)) {
      int port = server.port();
      String json = "{\"recipe\": \"ds\", \"duration\": \"30m\", \"comment\": \"x\"}";
      // What any web page can send without a preflight: text/plain, or an Origin of its own.
      HttpResponse<String> plain = send(port, "POST", "/api/v1/silences", json, "text/plain");
      assertThat(plain.statusCode()).isEqualTo(403);
      assertThat(plain.body()).contains("another site").contains("application/json");
      assertThat(
              send(
                      port,
                      "POST",
                      "/api/v1/silences",
                      json,
                      "application/json",
                      "Origin",
                      "https://evil.example")
                  .statusCode())
          .isEqualTo(403);
      assertThat(
              send(port, "POST", "/-/reload", null, null, "Sec-Fetch-Site", "cross-site")
                  .statusCode())
          .isEqualTo(403);
      assertThat(send(port, "POST", "/-/reload", null, null, "Origin", "null").statusCode())
          .as("a sandboxed page")
          .isEqualTo(403);
      assertThat(source.added).as("nothing written").isEmpty();
      // The same request from this server's own origin, or from a script, is accepted.
      assertThat(
              send(
                      port,
                      "POST",
                      "/api/v1/silences",
                      json,
                      "application/json",
                      "Origin",
                      "http://127.0.0.1:" + port,
                      "Sec-Fetch-Site",
                      "same-origin")
                  .statusCode())
          .isEqualTo(201);
      assertThat(source.added).hasSize(1);
    }
  }

  /** A request as a browser would send it, with a Host header of its own (HttpClient forbids). */
  static String raw(int port, String method, String path, String body, String... headers)
      throws IOException {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      StringBuilder req = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
      for (int i = 0; i < headers.length; i += 2) {
        req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
      }
      byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      req.append("Content-Length: ").append(bytes.length).append("\r\nConnection: close\r\n\r\n");
      socket
          .getOutputStream()
          .write(req.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      socket.getOutputStream().write(bytes);
      socket.getOutputStream().flush();
      return new String(
          socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  void withoutATokenADnsRebindingPageCannotWriteWhateverItsOrigin() throws Exception {
    Silences source = new Silences();
    try (StatusServer server =
        StatusServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new Sessions(
                Optional.empty(),
                java.util.Set.of("specwatch.internal"),
                false,
                java.time.Clock.systemUTC()),
            source)) {
      int port = server.port();
      String json = "{\"recipe\": \"ds\", \"duration\": \"30m\", \"comment\": \"x\"}";
      // evil.example resolved to 127.0.0.1: its page's requests carry its own name and origin.
      String rebound =
          raw(
              port,
              "POST",
              "/api/v1/silences",
              json,
              "Host",
              "evil.example:" + port,
              "Origin",
              "http://evil.example:" + port,
              "Content-Type",
              "application/json");
      assertThat(rebound).startsWith("HTTP/1.1 403").contains("Host evil.example");
      assertThat(
              raw(
                  port,
                  "POST",
                  "/-/reload",
                  "",
                  "Host",
                  "evil.example:" + port,
                  "Origin",
                  "http://evil.example:" + port))
          .as("before: 200")
          .startsWith("HTTP/1.1 403");
      assertThat(source.added).as("before: the silence was created (201)").isEmpty();
      // The loopback address, localhost and a name in server.allowed_hosts are this server.
      for (String host : List.of("127.0.0.1:" + port, "localhost:" + port, "specwatch.internal")) {
        assertThat(
                raw(
                    port,
                    "POST",
                    "/api/v1/silences",
                    json,
                    "Host",
                    host,
                    "Content-Type",
                    "application/json"))
            .as(host)
            .startsWith("HTTP/1.1 201");
      }
      assertThat(source.added).hasSize(3);
    }
  }

  @Test
  void wrongTokensAreThrottledSoEvenTheRightOneWaits() throws Exception {
    Silences source = new Silences();
    java.time.Clock fixed =
        java.time.Clock.fixed(Instant.parse("2026-12-03T10:00:00Z"), java.time.ZoneOffset.UTC);
    try (StatusServer server =
        StatusServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new Sessions(Optional.of(Secret.of(TOKEN)), java.util.Set.of(), true, fixed),
            source)) {
      int port = server.port();
      String form = "application/x-www-form-urlencoded";
      for (int i = 0; i < LoginThrottle.FREE; i++) {
        assertThat(send(port, "POST", "/login", "token=guess" + i, form).statusCode())
            .isEqualTo(401);
      }
      assertThat(
              send(port, "GET", "/api/v1/status", null, null, "Authorization", "Bearer x")
                  .statusCode())
          .as("the API counts too: the 11th wrong token")
          .isEqualTo(401);
      HttpResponse<String> right = send(port, "POST", "/login", "token=" + TOKEN, form);
      assertThat(right.statusCode())
          .as("before: the right token worked after 500 wrong")
          .isEqualTo(429);
      assertThat(right.headers().firstValue("Retry-After")).contains("1");
      assertThat(
              send(port, "GET", "/api/v1/status", null, null, "Authorization", "Bearer " + TOKEN)
                  .statusCode())
          .isEqualTo(429);
    }
    try (StatusServer server =
        StatusServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new Sessions(Optional.of(Secret.of(TOKEN)), java.util.Set.of(), true, fixed),
            source)) {
      HttpResponse<String> in =
          send(
              server.port(),
              "POST",
              "/login",
              "token=" + TOKEN,
              "application/x-www-form-urlencoded");
      assertThat(in.statusCode()).isEqualTo(303);
      assertThat(in.headers().firstValue("Set-Cookie").orElseThrow())
          .as("behind an https external_url")
          .contains("; Secure")
          .contains("HttpOnly");
    }
  }

  @Test
  void theThrottleDoublesItsLockoutAndForgetsAQuietClient() {
    LoginThrottle t = new LoginThrottle();
    Instant now = Instant.parse("2026-12-03T10:00:00Z");
    for (int i = 0; i < LoginThrottle.FREE; i++) {
      t.failed("a", now);
    }
    assertThat(t.locked("a", now)).isEmpty();
    t.failed("a", now);
    assertThat(t.locked("a", now)).contains(Duration.ofSeconds(1));
    t.failed("a", now.plusSeconds(1));
    assertThat(t.locked("a", now.plusSeconds(1))).contains(Duration.ofSeconds(2));
    for (int i = 0; i < 20; i++) {
      t.failed("a", now.plusSeconds(2));
    }
    assertThat(t.locked("a", now.plusSeconds(2))).contains(LoginThrottle.LONGEST);
    assertThat(t.locked("b", now)).as("another client").isEmpty();
    t.failed("a", now.plus(Duration.ofMinutes(30)));
    assertThat(t.locked("a", now.plus(Duration.ofMinutes(30)))).as("forgotten").isEmpty();
    t.succeeded("a");
    assertThat(t.locked("a", now)).isEmpty();
  }

  @Test
  void aSilenceOfEveryRecipeNeedsItsConfirmation() throws Exception {
    Silences source = new Silences();
    try (StatusServer server =
        StatusServer.start(new InetSocketAddress("127.0.0.1", 0), Optional.empty(), source)) {
      int port = server.port();
      String all = "{\"recipe\": \"*\", \"duration\": \"90d\", \"comment\": \"x\"";
      HttpResponse<String> refused =
          send(port, "POST", "/api/v1/silences", all + "}", "application/json");
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(refused.body()).contains("silences every recipe").contains("confirm_all");
      assertThat(source.added).isEmpty();
      assertThat(
              send(
                      port,
                      "POST",
                      "/api/v1/silences",
                      all + ", \"confirm_all\": true}",
                      "application/json")
                  .statusCode())
          .isEqualTo(201);
      String page = send(port, "GET", "/silences", null, null).body();
      assertThat(page).contains("name=\"confirm_all\"");
      String form = "recipe=*&duration=1h&comment=y&csrf=" + csrf(page);
      assertThat(send(port, "POST", "/silences", form, "application/x-www-form-urlencoded").body())
          .contains("silences every recipe");
      assertThat(source.added).hasSize(1);
    }
  }
}
