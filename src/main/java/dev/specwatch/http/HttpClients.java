package dev.specwatch.http;

import java.time.Duration;
import okhttp3.OkHttpClient;

/**
 * The one OkHttp client of the process: its connection pool and dispatcher are shared by every
 * datasource and notifier. Each user derives its own settings with {@code shared().newBuilder()},
 * which keeps the pool and threads (OkHttp's recommended way to vary clients).
 */
public final class HttpClients {
  private static final OkHttpClient SHARED =
      new OkHttpClient.Builder()
          .connectTimeout(Duration.ofSeconds(5))
          .readTimeout(Duration.ofSeconds(10))
          .writeTimeout(Duration.ofSeconds(10))
          .callTimeout(Duration.ofSeconds(15))
          .followRedirects(false)
          .build();

  private HttpClients() {}

  /** Finite timeouts (5 s connect, 10 s read/write, 15 s per call), no redirects. */
  public static OkHttpClient shared() {
    return SHARED;
  }
}
