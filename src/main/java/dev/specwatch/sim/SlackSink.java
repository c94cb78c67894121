package dev.specwatch.sim;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for Slack in demos: answers chat.postMessage and chat.update like the Slack Web API
 * (ok, channel, ts) and prints one line per message it receives. Point a slack notifier's {@code
 * api_url} at it.
 */
public final class SlackSink implements AutoCloseable {
  private final HttpServer server;

  private SlackSink(HttpServer server) {
    this.server = server;
  }

  public static SlackSink start(InetSocketAddress address, PrintWriter out) throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    AtomicInteger ts = new AtomicInteger(1);
    server.createContext(
        "/api/",
        exchange -> {
          try (exchange) {
            String method = exchange.getRequestURI().getPath().substring("/api/".length());
            Map<String, String> params =
                form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String channel = params.getOrDefault("channel", "#?");
            String messageTs =
                params.containsKey("ts")
                    ? params.get("ts")
                    : "1700000000." + String.format("%06d", ts.getAndIncrement());
            String where =
                params.containsKey("thread_ts")
                    ? channel + " (thread " + params.get("thread_ts") + ")"
                    : channel + (method.equals("chat.update") ? " (update " + messageTs + ")" : "");
            synchronized (out) {
              out.printf("[slack] %s %s: %s%n", method, where, params.getOrDefault("text", ""));
              out.flush();
            }
            byte[] body =
                ("{\"ok\":true,\"channel\":\""
                        + channel.replace("\"", "")
                        + "\",\"ts\":\""
                        + messageTs
                        + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
              o.write(body);
            }
          }
        });
    server.start();
    return new SlackSink(server);
  }

  private static Map<String, String> form(String body) {
    Map<String, String> params = new LinkedHashMap<>();
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        params.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return params;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
