package dev.specwatch.prometheus;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import dev.specwatch.model.PrometheusSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;
import okhttp3.Call;
import okhttp3.FormBody;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PrometheusApi} over HTTP with OkHttp. One instance per datasource, shared by every
 * evaluation; thread-safe. Finite timeouts on every attempt, a bounded number of retries for
 * transport errors and 5xx, and a size limit on response bodies. Error messages name the endpoint
 * without credentials or query parameters.
 */
public final class PrometheusClient implements PrometheusApi {
  private static final Logger logger = LoggerFactory.getLogger(PrometheusClient.class);

  /** Longer URLs go as a POST form, which every Prometheus-compatible API accepts. */
  private static final int MAX_GET_URL_LENGTH = 2000;

  private final PrometheusSettings settings;

  /** The answer size limit ({@link BodyLimit#effective}) and the parsers that keep to it. */
  private final long limit;

  private final com.fasterxml.jackson.core.JsonFactory parsers;

  private final OkHttpClient http;
  private final HttpUrl base;
  private final RetryPolicy<QueryResult> retryPolicy;

  /** Calls under way, so that {@link #abandon()} can cancel them. */
  private final Set<Call> inFlight = ConcurrentHashMap.newKeySet();

  private volatile boolean abandoned;

  public PrometheusClient(PrometheusSettings settings) {
    this.settings = settings;
    this.limit = BodyLimit.effective(settings.maxResponseBytes());
    this.parsers = ResponseParser.limitedTo(limit);
    this.base = HttpUrl.get(settings.url());
    this.http = DatasourceHttp.client(settings);
    this.retryPolicy =
        RetryPolicy.<QueryResult>builder()
            // Only failures that may pass (transport, 5xx) are retried; a query error or bad
            // credentials would fail the same way again.
            .handleIf(e -> e instanceof PrometheusException p && p.retryable() && !abandoned)
            .withBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))
            .withJitter(0.25)
            .withMaxRetries(settings.maxRetries())
            .build();
  }

  /**
   * Cancels every call under way and fails every later one at once, without retries: the daemon
   * stops within its bound however long the datasource takes to answer. Not undone.
   */
  public void abandon() {
    abandoned = true;
    inFlight.forEach(Call::cancel);
  }

  @Override
  public boolean abandoned() {
    return abandoned;
  }

  @Override
  public QueryResult query(String promql, Optional<Instant> time) throws PrometheusException {
    FormBody.Builder form = new FormBody.Builder().add("query", promql);
    time.ifPresent(t -> form.add("time", seconds(t)));
    return execute("api/v1/query", form.build());
  }

  @Override
  public QueryResult queryRange(String promql, Instant start, Instant end, Duration step)
      throws PrometheusException {
    FormBody form =
        new FormBody.Builder()
            .add("query", promql)
            .add("start", seconds(start))
            .add("end", seconds(end))
            .add("step", String.format(Locale.ROOT, "%.3f", step.toMillis() / 1000.0))
            .build();
    return execute("api/v1/query_range", form);
  }

  private QueryResult execute(String path, FormBody form) throws PrometheusException {
    try {
      return Failsafe.with(retryPolicy).get(() -> attempt(path, form));
    } catch (FailsafeException e) {
      if (e.getCause() instanceof PrometheusException p) {
        throw p;
      }
      throw new PrometheusException(
          PrometheusException.Kind.TRANSPORT, 0, endpoint(path) + ": interrupted");
    }
  }

  private QueryResult attempt(String path, FormBody form) throws PrometheusException {
    HttpUrl.Builder url = base.newBuilder().addPathSegments(path);
    for (int i = 0; i < form.size(); i++) {
      url.addQueryParameter(form.name(i), form.value(i));
    }
    HttpUrl getUrl = url.build();
    Request.Builder request = new Request.Builder().header("Accept", "application/json");
    if (getUrl.toString().length() <= MAX_GET_URL_LENGTH) {
      request.url(getUrl).get();
    } else {
      request.url(base.newBuilder().addPathSegments(path).build()).post(form);
    }

    String endpoint = endpoint(path);
    if (abandoned) {
      throw new PrometheusException(
          PrometheusException.Kind.TRANSPORT, 0, endpoint + ": not sent, specwatch is stopping");
    }
    Call call = http.newCall(request.build());
    inFlight.add(call);
    if (abandoned) {
      call.cancel(); // abandon() ran between the check and the add
    }
    try (Response response = call.execute()) {
      return handle(response, endpoint);
    } catch (IOException e) {
      if (abandoned) {
        throw new PrometheusException(
            PrometheusException.Kind.TRANSPORT, 0, endpoint + ": cancelled, specwatch is stopping");
      }
      if (e instanceof InterruptedIOException) {
        throw new PrometheusException(
            PrometheusException.Kind.TRANSPORT,
            0,
            endpoint + ": no answer within " + settings.timeout().toMillis() + " ms");
      }
      throw new PrometheusException(
          PrometheusException.Kind.TRANSPORT, 0, endpoint + ": " + describe(e));
    } finally {
      inFlight.remove(call);
    }
  }

  private QueryResult handle(Response response, String endpoint)
      throws IOException, PrometheusException {
    int status = response.code();
    ResponseBody body = response.body();
    String type = body == null || body.contentType() == null ? "" : body.contentType().toString();
    if (body != null && body.contentLength() > limit) {
      throw tooLarge(endpoint, status, body.contentLength());
    }
    boolean json = type.contains("json") || (body != null && looksLikeJson(body.source()));
    if (json
        && body != null
        && (status == 200 || status == 400 || status == 422 || status == 503)) {
      ResponseParser.Envelope envelope;
      // Parsed as it streams: the answer is never held whole, only what it parses into.
      try (InputStream in = body.source().inputStream()) {
        envelope = ResponseParser.parse(parsers, in);
      } catch (ResponseParser.MalformedResponse
          | com.fasterxml.jackson.core.JsonProcessingException e) {
        // A transport failure mid-body (a timeout, a reset) is not caught here: it propagates as
        // one, to be retried and reported as the transport's.
        if (e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException
            && String.valueOf(e.getMessage()).contains("getMaxDocumentLength")) {
          throw tooLarge(endpoint, status, -1);
        }
        throw new PrometheusException(
            PrometheusException.Kind.BAD_RESPONSE,
            status,
            endpoint
                + " returned a response that is not the Prometheus API (HTTP "
                + status
                + "): "
                + (e.getMessage() == null ? "malformed JSON" : firstLine(e.getMessage())));
      }
      if (envelope.result() != null) {
        if (status != 200) {
          throw new PrometheusException(
              PrometheusException.Kind.BAD_RESPONSE,
              status,
              endpoint + " returned HTTP " + status + " with a successful body");
        }
        if (!envelope.result().warnings().isEmpty()) {
          logger.warn("{} answered with warnings: {}", endpoint, envelope.result().warnings());
        }
        return envelope.result();
      }
      PrometheusException.Kind kind =
          status >= 500
                  || "unavailable".equals(envelope.errorType())
                  || "timeout".equals(envelope.errorType())
              ? PrometheusException.Kind.SERVER
              : PrometheusException.Kind.QUERY;
      throw new PrometheusException(
          kind,
          status,
          endpoint
              + " rejected the query ("
              + envelope.errorType()
              + "): "
              + ResponseParser.abbreviate(envelope.error()));
    }
    byte[] bytes = readLimited(body, endpoint, status);
    String excerpt =
        ResponseParser.abbreviate(
            new String(
                bytes, 0, Math.min(bytes.length, 512), java.nio.charset.StandardCharsets.UTF_8));
    String what =
        endpoint
            + " returned HTTP "
            + status
            + (type.isEmpty() ? "" : " (" + type + ")")
            + (excerpt.isEmpty() ? "" : ": " + excerpt);
    if (status >= 500) {
      throw new PrometheusException(PrometheusException.Kind.SERVER, status, what);
    }
    if (status >= 300 && status != 200) {
      throw new PrometheusException(PrometheusException.Kind.CLIENT, status, what);
    }
    throw new PrometheusException(
        PrometheusException.Kind.BAD_RESPONSE,
        status,
        endpoint
            + " returned a response that is not the Prometheus API (HTTP "
            + status
            + (type.isEmpty() ? "" : ", " + type)
            + ")"
            + (excerpt.isEmpty() ? "" : ": " + excerpt));
  }

  private byte[] readLimited(ResponseBody body, String endpoint, int status)
      throws IOException, PrometheusException {
    if (body == null) {
      return new byte[0];
    }
    BufferedSource source = body.source();
    if (source.request(limit + 1)) {
      throw tooLarge(endpoint, status, -1);
    }
    return source.readByteArray();
  }

  private PrometheusException tooLarge(String endpoint, int status, long length) {
    return new PrometheusException(
        PrometheusException.Kind.BAD_RESPONSE,
        status,
        endpoint
            + " returned "
            + (length > 0 ? length + " bytes" : "a body")
            + ", over the limit of "
            + limit
            + " bytes ("
            + (limit < settings.maxResponseBytes()
                ? "an eighth of the heap, below prometheus.max_response_size"
                : "prometheus.max_response_size")
            + ")");
  }

  /** Whether the first non-blank byte of the answer (peeked, not consumed) opens a JSON object. */
  private static boolean looksLikeJson(BufferedSource source) throws IOException {
    BufferedSource peek = source.peek();
    for (int i = 0; i < 512 && peek.request(1); i++) {
      byte b = peek.readByte();
      if (!Character.isWhitespace(b)) {
        return b == '{';
      }
    }
    return false;
  }

  /** {@code http://host:port/path}: no userinfo, no query string. */
  private String endpoint(String path) {
    return endpointOf(base, path);
  }

  private static String endpointOf(HttpUrl base, String path) {
    HttpUrl url =
        base.newBuilder()
            .username("")
            .password("")
            .query(null)
            .fragment(null)
            .addPathSegments(path)
            .build();
    return url.toString();
  }

  private static String describe(IOException e) {
    String message = e.getMessage();
    String name = e.getClass().getSimpleName();
    if (e instanceof ConnectException) {
      return "connection refused";
    }
    if (e instanceof UnknownHostException) {
      return "unknown host";
    }
    if (e instanceof SSLException) {
      return "TLS error: " + (message == null ? name : firstLine(message));
    }
    return message == null ? name : firstLine(message);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static String seconds(Instant t) {
    return String.format(Locale.ROOT, "%d.%03d", t.getEpochSecond(), t.getNano() / 1_000_000);
  }
}
