package dev.specwatch.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.Secret;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;
import okio.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's handling of what real servers and proxies send. A fake HTTP server is fine here (a
 * unit test); the integration tests use a real Prometheus.
 */
class PrometheusClientTest {
  private static final String TOKEN = "s3cr3t-token-value";
  private MockWebServer server;

  @BeforeEach
  void start() throws IOException {
    server = new MockWebServer();
    server.start();
  }

  @AfterEach
  void stop() throws IOException {
    server.shutdown();
  }

  private PrometheusClient client(int retries) {
    PrometheusSettings settings =
        new PrometheusSettings(
            URI.create(server.url("/prom").toString()),
            Duration.ofSeconds(2),
            Optional.of(Secret.of(TOKEN)),
            Optional.empty(),
            Map.of("X-Scope-OrgID", "tenant-1"),
            Optional.empty(),
            false,
            retries,
            PrometheusSettings.DEFAULT_MAX_RESPONSE_BYTES);
    return new PrometheusClient(settings);
  }

  private static MockResponse json(int status, String body) {
    return new MockResponse()
        .setResponseCode(status)
        .setHeader("Content-Type", "application/json")
        .setBody(body);
  }

  @Test
  void readsAVectorWithSpecialValuesAndWarnings() throws Exception {
    server.enqueue(
        json(
            200,
            """
        {"status":"success","warnings":["partial response"],"data":{"resultType":"vector","result":[
          {"metric":{"model_name":"a"},"value":[1764504000.5,"0.75"]},
          {"metric":{"model_name":"b"},"value":[1764504000.5,"NaN"]},
          {"metric":{"model_name":"c"},"value":[1764504000.5,"+Inf"]},
          {"metric":{},"value":[1764504000.5,"-Inf"]}]}}"""));
    QueryResult result = client(0).query("up", Optional.of(Instant.ofEpochSecond(1764504000)));
    assertThat(result.warnings()).containsExactly("partial response");
    assertThat(result.samples())
        .extracting(Sample::value)
        .containsExactly(0.75, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
    assertThat(result.samples().get(0).labels()).containsEntry("model_name", "a");
    assertThat(result.samples().get(0).time()).isEqualTo(Instant.ofEpochMilli(1764504000500L));

    RecordedRequest request = server.takeRequest();
    assertThat(request.getMethod()).isEqualTo("GET");
    assertThat(request.getRequestUrl().encodedPath()).isEqualTo("/prom/api/v1/query");
    assertThat(request.getRequestUrl().queryParameter("time")).isEqualTo("1764504000.000");
    assertThat(request.getHeader("Authorization")).isEqualTo("Bearer " + TOKEN);
    assertThat(request.getHeader("X-Scope-OrgID")).isEqualTo("tenant-1");
  }

  @Test
  void readsMatrixScalarAndStringResults() throws Exception {
    server.enqueue(
        json(
            200,
            """
        {"status":"success","data":{"resultType":"matrix","result":[
          {"metric":{"a":"1"},"values":[[10,"1"],[20,"2"]]}]}}"""));
    server.enqueue(
        json(
            200,
            "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
                + "\"result\":[10,\"3.5\"]}}"));
    server.enqueue(
        json(
            200,
            "{\"status\":\"success\",\"data\":{\"resultType\":\"string\","
                + "\"result\":[10,\"hello\"]}}"));
    PrometheusClient client = client(0);
    QueryResult.Matrix m =
        (QueryResult.Matrix)
            client.queryRange(
                "x", Instant.ofEpochSecond(10), Instant.ofEpochSecond(20), Duration.ofSeconds(10));
    assertThat(m.series().get(0).points())
        .extracting(Series.Point::value)
        .containsExactly(1.0, 2.0);
    assertThat(((QueryResult.Scalar) client.query("3.5", Optional.empty())).value()).isEqualTo(3.5);
    assertThat(((QueryResult.Text) client.query("\"hello\"", Optional.empty())).value())
        .isEqualTo("hello");
    RecordedRequest range = server.takeRequest();
    assertThat(range.getRequestUrl().queryParameter("step")).isEqualTo("10.000");
  }

  @Test
  void aResultOfTheWrongTypeIsTheDatasourcesFaultNotAProgrammingError() throws Exception {
    // A look-alike answering an instant query with a string, a range query with a vector.
    server.enqueue(
        json(
            200,
            "{\"status\":\"success\",\"data\":{\"resultType\":\"string\","
                + "\"result\":[10,\"hello\"]}}"));
    server.enqueue(
        json(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}"));
    PrometheusClient client = client(0);
    QueryResult text = client.query("x", Optional.empty());
    assertThatThrownBy(text::samples)
        .isInstanceOfSatisfying(
            PrometheusException.class,
            e -> assertThat(e.kind()).isEqualTo(PrometheusException.Kind.BAD_RESPONSE))
        .hasMessage("expected an instant vector, got Text");
    QueryResult vector =
        client.queryRange(
            "x", Instant.ofEpochSecond(10), Instant.ofEpochSecond(20), Duration.ofSeconds(10));
    assertThatThrownBy(vector::series)
        .isInstanceOf(PrometheusException.class)
        .hasMessage("expected a range vector, got Vector");
  }

  @Test
  void longQueriesArePostedAsAForm() throws Exception {
    server.enqueue(
        json(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}"));
    String longQuery = "up{job=~\"" + "a|".repeat(1500) + "b\"}";
    client(0).query(longQuery, Optional.empty());
    RecordedRequest request = server.takeRequest();
    assertThat(request.getMethod()).isEqualTo("POST");
    Buffer body = request.getBody();
    assertThat(body.readUtf8()).startsWith("query=up%7Bjob%3D%7E%22a%7C");
  }

  @Test
  void anHtml502PageIsOneClearErrorNamingTheEndpoint() {
    server.enqueue(
        new MockResponse()
            .setResponseCode(502)
            .setHeader("Content-Type", "text/html")
            .setBody(
                "<html><head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>"));
    assertThatThrownBy(() -> client(0).query("up", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .hasMessage(
            server.url("/prom/api/v1/query")
                + " returned HTTP 502 (text/html): "
                + "<html><head><title>502 Bad Gateway</title></head> <body>nginx</body></html>")
        .satisfies(
            e ->
                assertThat(((PrometheusException) e).kind())
                    .isEqualTo(PrometheusException.Kind.SERVER));
  }

  private static String vectorOf(String metric) {
    return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
        + "[{\"metric\":{"
        + metric
        + "},\"value\":[1,\"2\"]}]}}";
  }

  @Test
  void labelsAreReadWhateverTheirNumber() throws Exception {
    for (int count : new int[] {0, 1, 2, 4, 5, 12}) {
      StringBuilder metric = new StringBuilder();
      Map<String, String> expected = new java.util.HashMap<>();
      for (int i = 0; i < count; i++) {
        metric
            .append(i == 0 ? "" : ",")
            .append("\"l")
            .append(i)
            .append("\":\"v")
            .append(i)
            .append('"');
        expected.put("l" + i, "v" + i);
      }
      server.enqueue(json(200, vectorOf(metric.toString())));
      QueryResult.Vector v = (QueryResult.Vector) client(0).query("up", Optional.empty());
      assertThat(v.samples().get(0).labels()).isEqualTo(expected);
    }
  }

  @Test
  void aLabelThatIsNoStringOrComesTwiceIsABadResponse() {
    for (String bad : new String[] {"\"a\":null", "\"a\":{}", "\"a\":\"1\",\"a\":\"2\""}) {
      server.enqueue(json(200, vectorOf(bad)));
      assertThatThrownBy(() -> client(0).query("up", Optional.empty()))
          .isInstanceOf(PrometheusException.class)
          .satisfies(
              e ->
                  assertThat(((PrometheusException) e).kind())
                      .isEqualTo(PrometheusException.Kind.BAD_RESPONSE));
    }
  }

  @Test
  void truncatedJsonIsABadResponse() {
    server.enqueue(
        json(
            200,
            "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{"));
    assertThatThrownBy(() -> client(0).query("up", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .hasMessageStartingWith(
            server.url("/prom/api/v1/query")
                + " returned a response that is not the Prometheus API (HTTP 200)")
        .satisfies(
            e ->
                assertThat(((PrometheusException) e).kind())
                    .isEqualTo(PrometheusException.Kind.BAD_RESPONSE));
  }

  @Test
  void aBodyOverTheLimitIsRejectedWithoutParsing() {
    String big =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
            + "{\"metric\":{},\"value\":[1,\"1\"]},".repeat(400_000)
            + "]}}";
    assertThat(big.length()).isGreaterThan(10_000_000);
    server.enqueue(json(200, big));
    PrometheusClient small =
        new PrometheusClient(
            PrometheusSettings.of(URI.create(server.url("/").toString()))
                .withMaxResponseBytes(1 << 20));
    assertThatThrownBy(() -> small.query("up", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .hasMessageContaining("over the limit of 1048576 bytes (prometheus.max_response_size)");
  }

  @Test
  void queryErrorsAreReportedWithTheirTypeAndNotRetried() {
    server.enqueue(
        json(
            400,
            "{\"status\":\"error\",\"errorType\":\"bad_data\","
                + "\"error\":\"1:5: parse error: unexpected <by>\"}"));
    assertThatThrownBy(() -> client(3).query("sum(", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .hasMessage(
            server.url("/prom/api/v1/query")
                + " rejected the query (bad_data): 1:5: parse error: unexpected <by>");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void serverErrorsAreRetriedWithinTheBudget() throws Exception {
    server.enqueue(new MockResponse().setResponseCode(503).setBody("overloaded"));
    server.enqueue(
        json(503, "{\"status\":\"error\",\"errorType\":\"unavailable\",\"error\":\"x\"}"));
    server.enqueue(
        json(
            200,
            "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"1\"]}}"));
    assertThat(client(2).query("1", Optional.empty())).isInstanceOf(QueryResult.Scalar.class);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void givesUpAfterTheRetryBudget() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(new MockResponse().setResponseCode(500));
    }
    assertThatThrownBy(() -> client(1).query("1", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .hasMessageContaining("returned HTTP 500");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void unreachableServerIsATransportErrorWithoutSecrets() throws IOException {
    URI url = URI.create(server.url("/").toString());
    server.shutdown();
    PrometheusClient client =
        new PrometheusClient(
            PrometheusSettings.of(url).withBearerToken(Secret.of(TOKEN)).withMaxRetries(0));
    assertThatThrownBy(() -> client.query("up", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .hasMessage(url + "api/v1/query: connection refused")
        .satisfies(e -> assertThat(e.toString()).doesNotContain(TOKEN));
  }

  @Test
  void credentialsNeverAppearInErrors() {
    server.enqueue(new MockResponse().setResponseCode(401).setBody("bad token"));
    assertThatThrownBy(() -> client(0).query("up", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .satisfies(
            e -> {
              assertThat(e.getMessage())
                  .contains("HTTP 401")
                  .doesNotContain(TOKEN)
                  .doesNotContain("up");
              assertThat(((PrometheusException) e).kind())
                  .isEqualTo(PrometheusException.Kind.CLIENT);
            });
  }

  private PrometheusClient impatientClient() {
    return new PrometheusClient(
        PrometheusSettings.of(URI.create(server.url("/").toString()))
            .withBearerToken(Secret.of(TOKEN))
            .withMaxRetries(0)
            .withTimeout(Duration.ofMillis(300)));
  }

  @Test
  void aPrometheusThatNeverAnswersTimesOutWithAClearError() {
    server.enqueue(new MockResponse().setSocketPolicy(SocketPolicy.NO_RESPONSE));
    assertThatThrownBy(() -> impatientClient().query("up", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .hasMessageEndingWith("api/v1/query: no answer within 300 ms")
        .satisfies(
            e -> {
              assertThat(((PrometheusException) e).kind())
                  .isEqualTo(PrometheusException.Kind.TRANSPORT);
              assertThat(e.toString()).doesNotContain(TOKEN);
            });
  }

  @Test
  void aPrometheusThatStallsMidBodyTimesOut() {
    server.enqueue(
        json(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}")
            .throttleBody(8, 1, java.util.concurrent.TimeUnit.SECONDS));
    assertThatThrownBy(() -> impatientClient().query("up", Optional.empty()))
        .isInstanceOf(PrometheusException.class)
        .hasMessageContaining("no answer within 300 ms");
  }
}
