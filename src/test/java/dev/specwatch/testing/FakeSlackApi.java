package dev.specwatch.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A local HTTP server speaking the Slack Web API methods specwatch uses (chat.postMessage,
 * chat.update), for the official SDK pointed at it with setMethodsEndpointUrlPrefix. It records
 * every request and answers {@code ok:true} with increasing {@code ts}, unless a canned answer was
 * queued with {@link #enqueue}.
 */
public final class FakeSlackApi implements AutoCloseable {
  /** One received call: the method, its form parameters and the Authorization header. */
  public record Call(String method, Map<String, String> params, String authorization, Instant at) {
    public Call(String method, Map<String, String> params, String authorization) {
      this(method, params, authorization, Instant.now());
    }
  }

  /** A canned answer: status, body and an optional Retry-After. */
  public record Answer(int status, String body, String retryAfter) {}

  private final HttpServer server;
  private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
  private final Deque<Answer> answers = new ArrayDeque<>();
  private int ts = 1000;
  private final ExecutorService executor = Executors.newCachedThreadPool();

  /** How the server answers: normally, not at all until released, or one byte at a time. */
  public enum Behaviour {
    NORMAL,
    HANG,
    TRICKLE,
    /** chat.postMessage is processed (the message exists), its answer held until released. */
    ACCEPT_THEN_HANG
  }

  private volatile Behaviour behaviour = Behaviour.NORMAL;
  private volatile boolean failHung;
  private final List<Call> accepted = Collections.synchronizedList(new ArrayList<>());
  private volatile CountDownLatch released = new CountDownLatch(0);
  private volatile Duration trickleEvery = Duration.ofSeconds(5);

  /**
   * Requests from now on are recorded, then left unanswered until {@link #release()}, which
   * processes them (Slack was slow).
   */
  public void hang() {
    hang(false);
  }

  /**
   * @param thenFail answer the held requests 503 when released (Slack hung and never processed
   *     them)
   */
  public void hang(boolean thenFail) {
    failHung = thenFail;
    released = new CountDownLatch(1);
    behaviour = Behaviour.HANG;
  }

  /**
   * The crash window on demand: posts from now on are processed at once (the message is in the
   * channel, {@link #accepted()} has it) and their answers held until {@link #release()}.
   */
  public void acceptThenHang() {
    released = new CountDownLatch(1);
    behaviour = Behaviour.ACCEPT_THEN_HANG;
  }

  /** Calls answered {@code ok:true}: what Slack actually did. */
  public List<Call> accepted() {
    return List.copyOf(accepted);
  }

  /** Answers the hanging requests and answers normally from now on. */
  public void release() {
    behaviour = Behaviour.NORMAL;
    released.countDown();
  }

  /**
   * Answers one byte every {@code every} (a 503: the request is not processed): beats a read
   * timeout, not a call deadline. {@link #release()} ends it for new requests.
   */
  public void trickle(Duration every) {
    trickleEvery = every;
    behaviour = Behaviour.TRICKLE;
  }

  private volatile Duration writeEvery;
  private final Map<String, Instant> lastWrite = new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicInteger refused =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * Slack's rate limit, strictly: from now on a channel takes at most one write ({@code
   * chat.postMessage}, {@code chat.update}) per {@code every}, across every client; others get 429
   * with {@code Retry-After: 1} and are not processed. Slack allows about one message a second a
   * channel with short bursts over it; this allows no burst.
   */
  public void rateLimit(Duration every) {
    writeEvery = every;
  }

  private volatile String socketModeUrl;

  /** Where {@code apps.connections.open} sends Socket Mode clients (a {@link FakeSocketMode}). */
  public void socketMode(String url) {
    socketModeUrl = url;
  }

  /** Writes refused 429 by {@link #rateLimit}. */
  public int rateLimited() {
    return refused.get();
  }

  /** Whether the rate limit refuses this write (and if not, counts it against its channel). */
  private boolean limited(String method, Map<String, String> params) {
    Duration every = writeEvery;
    if (every == null || !(method.equals("chat.postMessage") || method.equals("chat.update"))) {
      return false;
    }
    Instant now = Instant.now();
    boolean[] refuse = {false};
    lastWrite.compute(
        params.getOrDefault("channel", "C0"),
        (channel, last) -> {
          if (last != null && now.isBefore(last.plus(every))) {
            refuse[0] = true;
            return last;
          }
          return now;
        });
    if (refuse[0]) {
      refused.incrementAndGet();
    }
    return refuse[0];
  }

  public FakeSlackApi() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/api/",
        exchange -> {
          String method = exchange.getRequestURI().getPath().substring("/api/".length());
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          Map<String, String> params = new LinkedHashMap<>();
          for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
              params.put(
                  URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                  URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
          }
          Call call =
              new Call(method, params, exchange.getRequestHeaders().getFirst("Authorization"));
          calls.add(call);
          Behaviour now = behaviour;
          boolean failAfterHang = false;
          if (now == Behaviour.HANG) {
            failAfterHang = failHung;
            try {
              released.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          Answer answer;
          synchronized (answers) {
            answer = now == Behaviour.TRICKLE || failAfterHang ? null : answers.poll();
          }
          if (answer == null && now == Behaviour.NORMAL && limited(method, params)) {
            answer = new Answer(429, "{\"ok\":false,\"error\":\"ratelimited\"}", "1");
          }
          if (now == Behaviour.TRICKLE || failAfterHang) {
            // Never processed: Slack hung or trickled, then failed.
            answer = new Answer(503, "{\"ok\":false,\"error\":\"service_unavailable\"}", null);
          }
          String messageTs = null;
          if (answer == null && method.equals("apps.connections.open")) {
            answer =
                socketModeUrl == null
                    ? new Answer(200, "{\"ok\":false,\"error\":\"not_allowed_token_type\"}", null)
                    : new Answer(200, "{\"ok\":true,\"url\":\"" + socketModeUrl + "\"}", null);
          } else if (answer == null && method.equals("conversations.history")) {
            answer = new Answer(200, history(params.getOrDefault("channel", "")), null);
          } else if (answer == null && method.equals("usergroups.users.list")) {
            List<String> members = userGroups.get(params.getOrDefault("usergroup", ""));
            answer =
                new Answer(
                    200,
                    members == null
                        ? "{\"ok\":false,\"error\":\"no_such_subteam\"}"
                        : "{\"ok\":true,\"users\":["
                            + String.join(",", members.stream().map(u -> "\"" + u + "\"").toList())
                            + "]}",
                    null);
          } else if (answer == null && method.equals("conversations.list")) {
            answer = new Answer(200, channels(), null);
          } else if (answer == null) {
            String channel = params.getOrDefault("channel", "C0");
            messageTs = method.equals("chat.update") ? params.get("ts") : nextTs();
            answer =
                new Answer(
                    200,
                    "{\"ok\":true,\"channel\":\"" + channel + "\",\"ts\":\"" + messageTs + "\"}",
                    null);
          }
          if (messageTs != null && method.equals("chat.postMessage")) {
            // Kept for conversations.history, with the metadata the message was posted with.
            posted.add(new Posted(params.getOrDefault("channel", "C0"), messageTs, params));
            if (now == Behaviour.ACCEPT_THEN_HANG) {
              accepted.add(call);
              try {
                released.await(120, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              try {
                byte[] late = answer.body().getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(answer.status(), late.length);
                try (OutputStream out = exchange.getResponseBody()) {
                  out.write(late);
                }
              } catch (IOException gone) {
                // the client died waiting: the crash window
              }
              return;
            }
          }
          byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
          if (answer.retryAfter() != null) {
            exchange.getResponseHeaders().set("Retry-After", answer.retryAfter());
          }
          if (now == Behaviour.TRICKLE) {
            exchange.sendResponseHeaders(answer.status(), bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
              for (byte b : bytes) {
                out.write(b);
                out.flush();
                Thread.sleep(trickleEvery.toMillis());
              }
            } catch (InterruptedException | IOException e) {
              Thread.currentThread().interrupt();
            }
            return;
          }
          exchange.sendResponseHeaders(answer.status(), bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
          if (answer.status() == 200 && answer.body().contains("\"ok\":true")) {
            accepted.add(call);
          }
        });
    server.setExecutor(executor);
    server.start();
  }

  private final Map<String, List<String>> userGroups =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** A user group and its members, as usergroups.users.list answers. */
  public void userGroup(String id, String... members) {
    userGroups.put(id, List.of(members));
  }

  /** A message chat.postMessage accepted: what conversations.history returns. */
  record Posted(String channel, String ts, Map<String, String> params) {}

  private final List<Posted> posted = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Forgets the history, as a channel without the messages would be. */
  public void clearHistory() {
    posted.clear();
  }

  /** Newest first, as Slack answers; the stand-in's channel ids are the names it was given. */
  private String history(String channel) {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    List<Map<String, Object>> messages = new ArrayList<>();
    for (Posted p : posted) {
      if (!p.channel().equals(channel) || p.params().containsKey("thread_ts")) {
        continue;
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("type", "message");
      m.put("ts", p.ts());
      m.put("text", p.params().getOrDefault("text", ""));
      String metadata = p.params().get("metadata");
      if (metadata != null) {
        try {
          m.put("metadata", json.readValue(metadata, Map.class));
        } catch (IOException e) {
          throw new IllegalStateException("metadata is not JSON: " + metadata, e);
        }
      }
      messages.add(0, m);
    }
    try {
      return json.writeValueAsString(Map.of("ok", true, "messages", messages, "has_more", false));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private String channels() {
    StringBuilder out = new StringBuilder("{\"ok\":true,\"channels\":[");
    java.util.Set<String> seen = new java.util.LinkedHashSet<>();
    posted.forEach(p -> seen.add(p.channel()));
    int i = 0;
    for (String c : seen) {
      out.append(i++ == 0 ? "" : ",")
          .append("{\"id\":\"")
          .append(c)
          .append("\",\"name\":\"")
          .append(c.startsWith("#") ? c.substring(1) : c)
          .append("\"}");
    }
    return out.append("]}").toString();
  }

  private synchronized String nextTs() {
    return "1764504000." + ts++;
  }

  public void enqueue(int status, String body, String retryAfter) {
    synchronized (answers) {
      answers.add(new Answer(status, body, retryAfter));
    }
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The prefix for SlackConfig#setMethodsEndpointUrlPrefix (notifier config api_url). */
  public URI apiUrl() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/");
  }

  @Override
  public void close() {
    release();
    server.stop(0);
    executor.shutdownNow();
  }
}
