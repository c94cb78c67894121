package dev.specwatch.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class RedactionTest {
  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aSecretIsScrubbedInEveryFormItTravelsIn() {
    Secret.of("pa55-w0rd+/=planted");
    String text =
        "echo: pa55-w0rd+/=planted, "
            + b64("pa55-w0rd+/=planted")
            + ", "
            + java.net.URLEncoder.encode("pa55-w0rd+/=planted", StandardCharsets.UTF_8);
    assertThat(Redaction.scrub(text))
        .isEqualTo("echo: <redacted>, <redacted>, <redacted>")
        .doesNotContain("pa55");
  }

  @Test
  void loginsAreScrubbedAsBasicAuthAndSmtpAuthSendThem() {
    Redaction.registerLogin("alice", "s3cret-login");
    assertThat(Redaction.scrub("Basic " + b64("alice:s3cret-login"))).isEqualTo("Basic <redacted>");
    assertThat(Redaction.scrub("535 5.7.8 " + b64("\0alice\0s3cret-login") + " rejected"))
        .isEqualTo("535 5.7.8 <redacted> rejected");
  }

  @Test
  void credentialShapesAreScrubbedWhateverTheirValue() {
    assertThat(Redaction.scrub("Authorization: Bearer abc.def.ghi\nHost: x"))
        .isEqualTo("Authorization: Bearer <redacted>\nHost: x");
    assertThat(Redaction.scrub("{\"authorization\": \"Basic Zm9vOmJhcg==\"}"))
        .isEqualTo("{\"authorization\": \"Basic <redacted>\"}");
    assertThat(Redaction.scrub("GET http://bob:hunter22@prom:9090/api/v1/query"))
        .isEqualTo("GET http://<redacted>@prom:9090/api/v1/query");
    assertThat(Redaction.scrub("POST https://hooks.slack.com/services/T000/B000/XXXXsecret failed"))
        .isEqualTo("POST https://hooks.slack.com/services/<redacted> failed");
    assertThat(Redaction.scrub("token xoxb-1234-5678-abcdef rejected"))
        .isEqualTo("token <redacted> rejected");
  }

  @Test
  void aSecretUrlsPathIsScrubbedOnItsOwn() {
    Secret.of("http://127.0.0.1:1/services/T1/B1/planted-path-secret");
    assertThat(Redaction.scrub("POST /services/T1/B1/planted-path-secret HTTP/1.1"))
        .isEqualTo("POST <redacted> HTTP/1.1");
  }

  @Test
  void ordinaryTextAndShortValuesAreLeftAlone() {
    Secret.of("abc"); // shorter than the minimum: not registered
    assertThat(Redaction.scrub("abc acceptance_rate 0.410 below 0.450"))
        .isEqualTo("abc acceptance_rate 0.410 below 0.450");
    assertThat(Redaction.scrub(null)).isNull();
  }

  @Test
  void aKeyInAUrlsQueryIsNeverShown() {
    java.net.URI url =
        java.net.URI.create(
            "https://user:pw@prom.example.com:9090/select/0?apikey=k3y-planted&x=1");
    assertThat(Redaction.url(url))
        .isEqualTo(
            "https://<redacted>@prom.example.com:9090/select/0?apikey=<redacted>&x=<redacted>");
    assertThat(
            Redaction.scrub(
                "GET https://prom.example.com/api/v1/query?query=up&api_key=abcd1234 failed"))
        .isEqualTo("GET https://prom.example.com/api/v1/query?query=up&api_key=<redacted> failed");
  }
}
