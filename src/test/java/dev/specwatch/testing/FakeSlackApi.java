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
    TRICKLE
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
          if (now == Behaviour.TRICKLE || failAfterHang) {
            // Never processed: Slack hung or trickled, then failed.
            answer = new Answer(503, "{\"ok\":false,\"error\":\"service_unavailable\"}", null);
          }
          if (answer == null) {
            String channel = params.getOrDefault("channel", "C0");
            String messageTs = method.equals("chat.update") ? params.get("ts") : nextTs();
            answer =
                new Answer(
                    200,
                    "{\"ok\":true,\"channel\":\"" + channel + "\",\"ts\":\"" + messageTs + "\"}",
                    null);
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
