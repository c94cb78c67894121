package dev.specwatch.http;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import okhttp3.ConnectionPool;
import okhttp3.ConnectionSpec;
import okhttp3.Dispatcher;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * The OkHttp clients of the process, sharing one connection pool and dispatcher across every
 * datasource and notifier. Each user derives its own settings with {@code newBuilder()}, which
 * keeps the pool and threads (OkHttp's recommended way to vary clients).
 *
 * <p>Two of them, each built on first use: one for {@code https} (and any URL), and one that speaks
 * only cleartext HTTP for {@code http} URLs. OkHttp sets TLS up when a client that may speak it is
 * built (the platform's trust store read and parsed, the security providers loaded): 9 MB of
 * resident memory that a daemon reading an in-cluster Prometheus over plain HTTP, with no https
 * notifier, never needs (docs/PERFORMANCE.md).
 */
public final class HttpClients {
  private static final ConnectionPool POOL = new ConnectionPool();
  private static final Dispatcher DISPATCHER = new Dispatcher();

  private HttpClients() {}

  private static OkHttpClient.Builder base() {
    return new OkHttpClient.Builder()
        .connectionPool(POOL)
        .dispatcher(DISPATCHER)
        .connectTimeout(Duration.ofSeconds(5))
        .readTimeout(Duration.ofSeconds(10))
        .writeTimeout(Duration.ofSeconds(10))
        .callTimeout(Duration.ofSeconds(15))
        .followRedirects(false);
  }

  private static final class Tls {
    static final OkHttpClient CLIENT = base().build();
  }

  private static final class Cleartext {
    static final OkHttpClient CLIENT =
        base().connectionSpecs(List.of(ConnectionSpec.CLEARTEXT)).build();
  }

  /**
   * For any URL, TLS included. Finite timeouts (5 s connect, 10 s read/write, 15 s per call), no
   * redirects.
   */
  public static OkHttpClient shared() {
    return Tls.CLIENT;
  }

  /**
   * The client for this URL: the cleartext one for {@code http}, which never sets TLS up, the
   * shared one otherwise. Same timeouts, no redirects (so a cleartext client never meets https).
   */
  public static OkHttpClient forUrl(URI url) {
    return "http".equalsIgnoreCase(url.getScheme()) ? Cleartext.CLIENT : Tls.CLIENT;
  }

  /** {@link #forUrl(URI)} for a parsed URL. */
  public static OkHttpClient forUrl(HttpUrl url) {
    return url.isHttps() ? Tls.CLIENT : Cleartext.CLIENT;
  }
}
