package dev.specwatch.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * One endpoint of the {@link StatusServer}: its path ({@code /x/{}} matches one more segment),
 * method, who may call it and what it answers.
 */
record Endpoint(String path, String method, Endpoint.Access access, Endpoint.Handler handler) {
  /** Who may call an endpoint (see {@link Sessions}). */
  enum Access {
    PUBLIC,
    API,
    API_WRITE,
    PAGE,
    FORM
  }

  interface Handler {
    Response handle(StatusServer.Source source, Request request) throws IOException;
  }

  boolean matches(String requestPath) {
    if (!path.endsWith("/{}")) {
      return path.equals(requestPath);
    }
    String prefix = path.substring(0, path.length() - 2);
    return requestPath.startsWith(prefix)
        && requestPath.length() > prefix.length()
        && requestPath.indexOf('/', prefix.length()) < 0;
  }

  String param(String requestPath) {
    return path.endsWith("/{}")
        ? java.net.URLDecoder.decode(
            requestPath.substring(path.length() - 2), StandardCharsets.UTF_8)
        : null;
  }
}
