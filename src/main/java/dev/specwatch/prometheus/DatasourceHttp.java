package dev.specwatch.prometheus;

import dev.specwatch.http.HttpClients;
import dev.specwatch.http.Trust;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.Redaction;
import java.io.IOException;
import okhttp3.Credentials;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.tls.HandshakeCertificates;

/**
 * The HTTP client of one datasource: derived from the shared client, with the datasource's
 * timeouts, TLS trust (a CA file or insecure_skip_verify, through okhttp-tls) and credentials added
 * by an interceptor, so no other code handles them.
 */
final class DatasourceHttp {
  private DatasourceHttp() {}

  static OkHttpClient client(PrometheusSettings settings) {
    OkHttpClient.Builder builder =
        HttpClients.forUrl(settings.url())
            .newBuilder()
            .connectTimeout(settings.timeout())
            .readTimeout(settings.timeout())
            .writeTimeout(settings.timeout())
            .callTimeout(settings.timeout())
            .retryOnConnectionFailure(false)
            .addInterceptor(new Auth(settings));
    if (settings.insecureSkipVerify()) {
      String host = HttpUrl.get(settings.url()).host();
      HandshakeCertificates insecure =
          new HandshakeCertificates.Builder()
              .addPlatformTrustedCertificates()
              .addInsecureHost(host)
              .build();
      builder.sslSocketFactory(insecure.sslSocketFactory(), insecure.trustManager());
      builder.hostnameVerifier((h, session) -> h.equals(host));
    } else if (settings.caFile().isPresent()) {
      HandshakeCertificates trusted = Trust.fromPemFile(settings.caFile().get());
      builder.sslSocketFactory(trusted.sslSocketFactory(), trusted.trustManager());
    }
    return builder.build();
  }

  /** Adds the configured headers and credentials to every request of this datasource. */
  private record Auth(PrometheusSettings settings) implements Interceptor {
    Auth {
      // Basic auth goes on the wire Base64-encoded: scrub that form too, should it be quoted back.
      settings
          .basicAuth()
          .ifPresent(b -> Redaction.registerLogin(b.username(), b.password().reveal()));
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
      Request.Builder request = chain.request().newBuilder();
      settings.headers().forEach(request::header);
      settings
          .bearerToken()
          .ifPresent(t -> request.header("Authorization", "Bearer " + t.reveal()));
      settings
          .basicAuth()
          .ifPresent(
              b ->
                  request.header(
                      "Authorization", Credentials.basic(b.username(), b.password().reveal())));
      return chain.proceed(request.build());
    }
  }
}
