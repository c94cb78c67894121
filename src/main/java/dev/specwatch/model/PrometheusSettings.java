package dev.specwatch.model;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * How to reach one Prometheus-compatible query API. Secrets are {@link Secret}s, so this record's
 * toString is safe to log.
 *
 * @param url base URL without credentials, e.g. {@code http://127.0.0.1:9090} or {@code
 *     https://mimir.example.com/prometheus}
 * @param timeout per attempt: connect, read and the whole call
 * @param maxRetries extra attempts after a transport error or 5xx, within one evaluation
 * @param maxResponseBytes larger bodies are rejected, not parsed
 */
public record PrometheusSettings(
    URI url,
    Duration timeout,
    Optional<Secret> bearerToken,
    Optional<BasicAuth> basicAuth,
    Map<String, String> headers,
    Optional<Path> caFile,
    boolean insecureSkipVerify,
    int maxRetries,
    long maxResponseBytes) {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final int DEFAULT_MAX_RETRIES = 2;
  public static final long DEFAULT_MAX_RESPONSE_BYTES = 64L * 1024 * 1024;

  public record BasicAuth(String username, Secret password) {}

  public PrometheusSettings {
    if (url == null || url.getScheme() == null || url.getHost() == null) {
      throw new IllegalArgumentException("url needs a scheme and host");
    }
    if (url.getUserInfo() != null) {
      throw new IllegalArgumentException("credentials belong in basic_auth, not in the url");
    }
    if (timeout.isZero() || timeout.isNegative() || maxRetries < 0 || maxResponseBytes < 1) {
      throw new IllegalArgumentException("timeout, max_retries and max_response_size must be set");
    }
    headers = Map.copyOf(headers);
  }

  /** Defaults for everything but the URL. */
  public static PrometheusSettings of(URI url) {
    return new PrometheusSettings(
        url,
        DEFAULT_TIMEOUT,
        Optional.empty(),
        Optional.empty(),
        Map.of(),
        Optional.empty(),
        false,
        DEFAULT_MAX_RETRIES,
        DEFAULT_MAX_RESPONSE_BYTES);
  }

  public PrometheusSettings withMaxRetries(int retries) {
    return new PrometheusSettings(
        url,
        timeout,
        bearerToken,
        basicAuth,
        headers,
        caFile,
        insecureSkipVerify,
        retries,
        maxResponseBytes);
  }

  public PrometheusSettings withTimeout(Duration timeout) {
    return new PrometheusSettings(
        url,
        timeout,
        bearerToken,
        basicAuth,
        headers,
        caFile,
        insecureSkipVerify,
        maxRetries,
        maxResponseBytes);
  }

  public PrometheusSettings withMaxResponseBytes(long bytes) {
    return new PrometheusSettings(
        url,
        timeout,
        bearerToken,
        basicAuth,
        headers,
        caFile,
        insecureSkipVerify,
        maxRetries,
        bytes);
  }

  public PrometheusSettings withBearerToken(Secret token) {
    return new PrometheusSettings(
        url,
        timeout,
        Optional.of(token),
        basicAuth,
        headers,
        caFile,
        insecureSkipVerify,
        maxRetries,
        maxResponseBytes);
  }
}
