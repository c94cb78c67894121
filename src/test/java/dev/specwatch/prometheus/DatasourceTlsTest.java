package dev.specwatch.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.http.HttpClients;
import dev.specwatch.model.PrometheusSettings;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import okhttp3.ConnectionSpec;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A datasource over https with its own CA file is read through the TLS client; one over plain http
 * gets the client that never sets TLS up (docs/PERFORMANCE.md: 9 MB resident), on the same pool.
 */
class DatasourceTlsTest {
  @TempDir Path dir;

  private static PrometheusSettings settings(URI url, Optional<Path> caFile) {
    return new PrometheusSettings(
        url,
        Duration.ofSeconds(5),
        Optional.empty(),
        Optional.empty(),
        Map.of(),
        caFile,
        false,
        0,
        PrometheusSettings.DEFAULT_MAX_RESPONSE_BYTES);
  }

  @Test
  void anHttpsDatasourceWithItsCaFileIsRead() throws Exception {
    HeldCertificate ca = new HeldCertificate.Builder().certificateAuthority(0).build();
    HeldCertificate cert =
        new HeldCertificate.Builder().addSubjectAlternativeName("localhost").signedBy(ca).build();
    HandshakeCertificates serverCertificates =
        new HandshakeCertificates.Builder().heldCertificate(cert, ca.certificate()).build();
    Path caFile = dir.resolve("ca.pem");
    Files.writeString(caFile, ca.certificatePem(), StandardCharsets.US_ASCII);
    try (MockWebServer server = new MockWebServer()) {
      server.useHttps(serverCertificates.sslSocketFactory(), false);
      server.enqueue(
          new MockResponse()
              .setHeader("Content-Type", "application/json")
              .setBody(
                  "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                      + "{\"metric\":{\"model_name\":\"a\"},\"value\":[1764504000,\"0.75\"]}]}}"));
      server.start();
      URI url = URI.create("https://localhost:" + server.getPort() + "/");
      QueryResult result =
          new PrometheusClient(settings(url, Optional.of(caFile))).query("up", Optional.empty());
      assertThat(result.toString()).contains("0.75");
      RecordedRequest request = server.takeRequest();
      assertThat(request.getRequestUrl().isHttps()).isTrue();
      assertThat(request.getHandshake()).isNotNull();
    }
  }

  @Test
  void anHttpUrlGetsTheCleartextClientOnTheSamePool() {
    OkHttpClient http = HttpClients.forUrl(URI.create("http://prometheus.monitoring:9090"));
    OkHttpClient https = HttpClients.forUrl(URI.create("https://prometheus.example.com"));
    assertThat(http.connectionSpecs()).containsExactly(ConnectionSpec.CLEARTEXT);
    assertThat(https.connectionSpecs()).anyMatch(ConnectionSpec::isTls);
    assertThat(https).isSameAs(HttpClients.shared());
    assertThat(http.connectionPool()).isSameAs(https.connectionPool());
    assertThat(http.dispatcher()).isSameAs(https.dispatcher());
    assertThat(HttpClients.forUrl(okhttp3.HttpUrl.get("http://hooks.local/x"))).isSameAs(http);
    assertThat(
            DatasourceHttp.client(settings(URI.create("http://p:9090"), Optional.empty()))
                .connectionSpecs())
        .containsExactly(ConnectionSpec.CLEARTEXT);
  }
}
