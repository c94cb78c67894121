package dev.specwatch.testing;

import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.QueryResult;
import dev.specwatch.prometheus.Sample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A hand-written {@link PrometheusApi} for unit tests and benchmarks: answers each query with
 * {@code answer.apply(promql)} and records what was asked. Integration tests use a real Prometheus
 * instead.
 */
public final class FakePrometheus implements PrometheusApi {
  /** Answers a query: samples, or throws a {@link PrometheusException}. */
  public interface Answer {
    List<Sample> apply(String promql) throws PrometheusException;
  }

  private final Answer answer;
  private final List<String> queries = Collections.synchronizedList(new ArrayList<>());

  public FakePrometheus(Answer answer) {
    this.answer = answer;
  }

  public static FakePrometheus of(Function<String, List<Sample>> answer) {
    return new FakePrometheus(answer::apply);
  }

  public List<String> queries() {
    return List.copyOf(queries);
  }

  @Override
  public QueryResult query(String promql, Optional<Instant> time) throws PrometheusException {
    queries.add(promql);
    return new QueryResult.Vector(answer.apply(promql), List.of());
  }

  @Override
  public QueryResult queryRange(String promql, Instant start, Instant end, Duration step) {
    throw new UnsupportedOperationException("range queries are not faked");
  }
}
