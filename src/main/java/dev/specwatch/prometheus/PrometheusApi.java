package dev.specwatch.prometheus;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The Prometheus HTTP query API (also served by Thanos, Mimir, Cortex and VictoriaMetrics).
 * Implementations are thread-safe.
 */
public interface PrometheusApi {
  /** {@code /api/v1/query} at {@code time}, or at the server's now when empty. */
  QueryResult query(String promql, Optional<Instant> time) throws PrometheusException;

  /** {@code /api/v1/query_range} from {@code start} to {@code end} every {@code step}. */
  QueryResult queryRange(String promql, Instant start, Instant end, Duration step)
      throws PrometheusException;

  /**
   * Whether the client was abandoned (the daemon is stopping): every query fails, and what an
   * evaluation read from it must not be acted on.
   */
  default boolean abandoned() {
    return false;
  }
}
