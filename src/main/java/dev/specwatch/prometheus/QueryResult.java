package dev.specwatch.prometheus;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The {@code data} of a successful query, one record per Prometheus result type. */
public sealed interface QueryResult {
  /** Warnings Prometheus attached to the answer (e.g. a partial response from Thanos). */
  List<String> warnings();

  record Vector(List<Sample> samples, List<String> warnings) implements QueryResult {
    public Vector {
      samples = List.copyOf(samples);
      warnings = List.copyOf(warnings);
    }
  }

  record Matrix(List<Series> series, List<String> warnings) implements QueryResult {
    public Matrix {
      series = List.copyOf(series);
      warnings = List.copyOf(warnings);
    }
  }

  record Scalar(Instant time, double value, List<String> warnings) implements QueryResult {
    public Scalar {
      warnings = List.copyOf(warnings);
    }
  }

  record Text(Instant time, String value, List<String> warnings) implements QueryResult {
    public Text {
      warnings = List.copyOf(warnings);
    }
  }

  /**
   * The samples of an instant vector; a scalar becomes one sample without labels. Another result
   * type is the datasource's fault (a proxy or a look-alike answering the query API with something
   * else): a {@link PrometheusException.Kind#BAD_RESPONSE}, not a programming error.
   */
  default List<Sample> samples() throws PrometheusException {
    if (this instanceof Vector v) {
      return v.samples();
    }
    if (this instanceof Scalar s) {
      return List.of(new Sample(Map.of(), s.time(), s.value()));
    }
    throw new PrometheusException(
        PrometheusException.Kind.BAD_RESPONSE,
        0,
        "expected an instant vector, got " + getClass().getSimpleName());
  }

  /** The series of a range query's matrix; another result type as in {@link #samples}. */
  default List<Series> series() throws PrometheusException {
    if (this instanceof Matrix m) {
      return m.series();
    }
    throw new PrometheusException(
        PrometheusException.Kind.BAD_RESPONSE,
        0,
        "expected a range vector, got " + getClass().getSimpleName());
  }
}
