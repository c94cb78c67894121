package dev.specwatch.server;

import dev.specwatch.server.Endpoint.Access;
import java.time.Duration;
import java.util.Optional;

/**
 * Whether a request may reach its endpoint ({@link Sessions} decides who is who), and the answer
 * when it may not: the login page, 401 with {@code WWW-Authenticate}, 403 saying why a write was
 * refused, or 429 while a client that gave too many wrong tokens waits ({@link LoginThrottle}).
 */
final class Gate {
  private Gate() {}

  /** Empty when {@code r} may go on to its endpoint. */
  static Optional<Response> refusal(Access access, Request r, Sessions sessions) {
    boolean guarded =
        sessions.tokenConfigured() && (access == Access.API || access == Access.API_WRITE);
    if (guarded) {
      Optional<Duration> wait = sessions.throttle().locked(r.client(), sessions.now());
      if (wait.isPresent()) {
        return Optional.of(tooManyTries(wait.get()));
      }
    }
    boolean allowed =
        switch (access) {
          case PUBLIC -> true;
          case API -> sessions.apiAuthorized(r);
          case API_WRITE -> sessions.apiWriteAuthorized(r);
          case PAGE -> sessions.pageAuthorized(r);
          case FORM -> sessions.formAuthorized(r);
        };
    if (guarded) {
      if (allowed) {
        sessions.throttle().succeeded(r.client());
      } else {
        sessions.throttle().failed(r.client(), sessions.now());
      }
    }
    return allowed ? Optional.empty() : Optional.of(refused(access, r, sessions));
  }

  private static Response refused(Access access, Request r, Sessions sessions) {
    return switch (access) {
      case PAGE -> Response.seeOther("/login");
      case FORM ->
          sessions
              .foreignHost(r)
              .filter(why -> !sessions.tokenConfigured())
              .map(why -> Response.text(403, "refused: " + why + "\n"))
              .orElseGet(
                  () ->
                      Response.text(403, "forbidden: reload the page and submit the form again\n"));
      case API_WRITE ->
          sessions.tokenConfigured()
              ? unauthorized()
              : Sessions.crossSite(r)
                  .or(() -> sessions.foreignHost(r))
                  .map(
                      why ->
                          Response.text(
                              403,
                              "refused: the request looks sent by another site's page ("
                                  + why
                                  + "); send JSON from a script, or set server.bearer_token\n"))
                  .orElseGet(
                      () ->
                          Response.text(
                              403,
                              "writes are accepted from loopback only (set"
                                  + " server.bearer_token)\n"));
      default -> unauthorized();
    };
  }

  private static Response unauthorized() {
    return Response.text(401, "missing or wrong bearer token\n")
        .withHeader("WWW-Authenticate", "Bearer");
  }

  /** A client that gave wrong tokens too often ({@link LoginThrottle}). */
  static Response tooManyTries(Duration wait) {
    long seconds = Math.max(1, wait.toSeconds() + (wait.toMillisPart() > 0 ? 1 : 0));
    return Response.text(429, "too many wrong tokens: try again in " + seconds + " s\n")
        .withHeader("Retry-After", Long.toString(seconds));
  }
}
