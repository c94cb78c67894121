package dev.specwatch.server;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP request as the handlers see it: method, path, the path's last segment for {@code
 * /recipes/{name}} routes, query and form parameters, cookies, and whether it came from loopback.
 */
record Request(
    String method,
    String path,
    String pathParam,
    Map<String, String> query,
    Map<String, String> form,
    String body,
    Map<String, String> cookies,
    Map<String, String> headers,
    boolean loopback,
    String client,
    Sessions sessions) {

  /** Bodies larger than this are refused (a silence is a few hundred bytes). */
  static final int MAX_BODY = 64 * 1024;

  static Request of(HttpExchange ex, String pathParam) throws IOException {
    String body = "";
    if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
      try (InputStream in = ex.getRequestBody()) {
        byte[] bytes = in.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
          throw new TooLarge();
        }
        body = new String(bytes, StandardCharsets.UTF_8);
      }
    }
    String type = Optional.ofNullable(ex.getRequestHeaders().getFirst("Content-Type")).orElse("");
    Map<String, String> headers = new LinkedHashMap<>();
    ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.get(0)));
    return new Request(
        ex.getRequestMethod(),
        ex.getRequestURI().getPath(),
        pathParam,
        parse(ex.getRequestURI().getRawQuery()),
        type.startsWith("application/x-www-form-urlencoded") ? parse(body) : Map.of(),
        body,
        cookies(ex.getRequestHeaders().getFirst("Cookie")),
        headers,
        ex.getRemoteAddress().getAddress().isLoopbackAddress(),
        ex.getRemoteAddress().getAddress().getHostAddress(),
        null);
  }

  /** A body over {@link #MAX_BODY}: answered 413. */
  static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("request body over " + MAX_BODY + " bytes", null, false, false);
    }
  }

  /** {@code a=1&b=x%20y} into a map (the first value of each name). */
  static Map<String, String> parse(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.putIfAbsent(
          URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static Map<String, String> cookies(String header) {
    Map<String, String> out = new LinkedHashMap<>();
    if (header == null) {
      return out;
    }
    for (String part : header.split(";")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        out.put(part.substring(0, eq).strip(), part.substring(eq + 1).strip());
      }
    }
    return out;
  }

  Request withSessions(Sessions s) {
    return new Request(
        method, path, pathParam, query, form, body, cookies, headers, loopback, client, s);
  }

  /** The CSRF token forms must carry. */
  String csrf() {
    return sessions == null ? "" : sessions.csrf();
  }

  String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }
}
