package dev.specwatch.prometheus;

import dev.specwatch.model.Redaction;

/**
 * A query that did not produce a result. The message names the endpoint (scheme, host, port and
 * path; never credentials or the query string) and what went wrong, in one line for the user;
 * whatever the upstream quoted back is scrubbed of credentials ({@link Redaction}).
 */
public final class PrometheusException extends Exception {
  private static final long serialVersionUID = 1L;

  public enum Kind {
    /** Connection refused, DNS, TLS handshake, timeout. Retried. */
    TRANSPORT,
    /** HTTP 5xx from Prometheus or a proxy in front of it. Retried. */
    SERVER,
    /** HTTP 4xx other than a query error: bad credentials, wrong path. Not retried. */
    CLIENT,
    /** Prometheus rejected the query ({@code status: error}, e.g. bad_data). Not retried. */
    QUERY,
    /** Not the Prometheus API: HTML, truncated or malformed JSON, a body over the size limit. */
    BAD_RESPONSE
  }

  private final Kind kind;
  private final int status;

  public PrometheusException(Kind kind, int status, String message) {
    super(Redaction.scrub(message), null, false, false);
    this.kind = kind;
    this.status = status;
  }

  public Kind kind() {
    return kind;
  }

  /** HTTP status, or 0 when none was received. */
  public int status() {
    return status;
  }

  public boolean retryable() {
    return kind == Kind.TRANSPORT || kind == Kind.SERVER;
  }
}
