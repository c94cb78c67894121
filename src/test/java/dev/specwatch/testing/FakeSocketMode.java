package dev.specwatch.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;

/**
 * A local stand-in for Slack's Socket Mode: a WebSocket server on loopback speaking the envelope
 * protocol (api.slack.com/apis/socket-mode). A client that connects gets {@code hello}; {@link
 * #press} sends an {@code interactive} envelope with a {@code block_actions} payload, as Slack does
 * when someone presses a button, and records the client's acknowledgement ({@code {"envelope_id":
 * …}}). Point {@link FakeSlackApi#socketMode} at {@link #url}.
 */
public final class FakeSocketMode implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<String> acks = new CopyOnWriteArrayList<>();
  private final List<WebSocket> clients = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger opened =
      new java.util.concurrent.atomic.AtomicInteger();
  private final CountDownLatch connected = new CountDownLatch(1);
  private final CountDownLatch started = new CountDownLatch(1);
  private final WebSocketServer server;

  public FakeSocketMode() throws InterruptedException {
    server =
        new WebSocketServer(new InetSocketAddress("127.0.0.1", 0)) {
          @Override
          public void onOpen(WebSocket conn, ClientHandshake handshake) {
            clients.add(conn);
            opened.incrementAndGet();
            conn.send(
                "{\"type\":\"hello\",\"num_connections\":1,\"debug_info\":{\"host\":\"local\"},"
                    + "\"connection_info\":{\"app_id\":\"A0SPECWATCH\"}}");
            connected.countDown();
          }

          @Override
          public void onClose(WebSocket conn, int code, String reason, boolean remote) {
            clients.remove(conn);
          }

          @Override
          public void onMessage(WebSocket conn, String message) {
            try {
              JsonNode m = JSON.readTree(message);
              if (m.has("envelope_id")) {
                acks.add(m.get("envelope_id").asText());
              }
            } catch (java.io.IOException e) {
              // not JSON: not an acknowledgement
            }
          }

          @Override
          public void onError(WebSocket conn, Exception e) {}

          @Override
          public void onStart() {
            started.countDown();
          }
        };
    server.setReuseAddr(true);
    server.start();
    if (!started.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the Socket Mode stand-in did not start");
    }
  }

  public String url() {
    return "ws://127.0.0.1:" + server.getPort() + "/link";
  }

  /** Waits until a client has connected; false when none did within the time. */
  public boolean awaitClient(long seconds) throws InterruptedException {
    return connected.await(seconds, TimeUnit.SECONDS);
  }

  /**
   * A press of button {@code actionId} (value {@code value}) by {@code userId} on message {@code
   * ts} of {@code channel}; returns the envelope id to look for in {@link #acks}.
   */
  public String press(String actionId, String value, String userId, String channel, String ts) {
    String id = UUID.randomUUID().toString();
    ObjectNode payload = JSON.createObjectNode();
    payload.put("type", "block_actions");
    payload.set(
        "user", JSON.valueToTree(Map.of("id", userId, "username", "oncall", "name", "oncall")));
    payload.set("channel", JSON.valueToTree(Map.of("id", channel)));
    payload.set(
        "container",
        JSON.valueToTree(Map.of("type", "message", "message_ts", ts, "channel_id", channel)));
    payload.set(
        "actions",
        JSON.valueToTree(
            List.of(
                Map.of(
                    "action_id",
                    actionId,
                    "block_id",
                    "specwatch_actions",
                    "value",
                    value,
                    "type",
                    "button"))));
    ObjectNode envelope = JSON.createObjectNode();
    envelope.put("envelope_id", id);
    envelope.put("type", "interactive");
    envelope.put("accepts_response_payload", false);
    envelope.set("payload", payload);
    for (WebSocket c : clients) {
      c.send(envelope.toString());
    }
    return id;
  }

  /** The envelope ids the client acknowledged, in order. */
  /** How many connections were ever opened, and how many are open now. */
  public int opened() {
    return opened.get();
  }

  public int open() {
    return clients.size();
  }

  public List<String> acks() {
    return List.copyOf(acks);
  }

  @Override
  public void close() {
    try {
      server.stop(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
