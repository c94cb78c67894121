package dev.specwatch.server;

import dev.specwatch.server.StatusServer.Source;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /login}: the bearer token entered once for a session cookie (docs/OPERATIONS.md, "Who may
 * write"); wrong tokens are throttled ({@link LoginThrottle}).
 */
final class LoginPage {
  private LoginPage() {}

  static Response form(Request r, String error) {
    Map<String, Object> v = WebPages.page("Sign in", "", r);
    v.put("error", error);
    return Response.html(error == null ? 200 : 401, WebPages.render("login", v));
  }

  static Response submit(Source s, Request r) {
    LoginThrottle throttle = r.sessions().throttle();
    Optional<Duration> wait = throttle.locked(r.client(), r.sessions().now());
    if (wait.isPresent()) {
      return Gate.tooManyTries(wait.get());
    }
    Optional<String> session = r.sessions().login(r.form().getOrDefault("token", ""));
    if (session.isEmpty()) {
      if (!r.sessions().tokenConfigured()) {
        return Response.seeOther("/");
      }
      throttle.failed(r.client(), r.sessions().now());
      return form(r, "That is not the server's bearer token.");
    }
    throttle.succeeded(r.client());
    return Response.seeOther("/").withHeader("Set-Cookie", r.sessions().cookie(session.get()));
  }
}
