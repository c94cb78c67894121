package dev.specwatch.digest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.icegreen.greenmail.util.DummySSLServerSocketFactory;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Secret;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.testing.WireTap;
import dev.specwatch.yaml.InvalidInputException;
import jakarta.mail.MessagingException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.subethamail.smtp.auth.EasyAuthenticationHandlerFactory;
import org.subethamail.smtp.auth.LoginFailedException;
import org.subethamail.smtp.helper.SimpleMessageListener;
import org.subethamail.smtp.server.SMTPServer;

/**
 * The digest's SMTP connection is secured as configured, against real servers: GreenMail over SMTPS
 * (TLS from the first byte) and SubEthaSMTP requiring STARTTLS (GreenMail has none), both with a
 * certificate made here for 127.0.0.1. A wire tap in front of each server records what an
 * eavesdropper would read: never the password, in clear or Base64. A server that cannot give TLS,
 * or whose certificate does not verify, fails the send before the login.
 */
class DigestTlsTest {
  static final String PASSWORD = "smtp-Secr3t-pw-7781";
  static final String USER = "digest";

  @TempDir static Path dir;
  static HeldCertificate server;
  static Path caFile;
  static Path otherCa;

  @BeforeAll
  static void certificates() throws Exception {
    server =
        new HeldCertificate.Builder()
            .commonName("specwatch test smtp")
            .addSubjectAlternativeName("127.0.0.1")
            .build();
    caFile = dir.resolve("ca.pem");
    Files.writeString(caFile, server.certificatePem());
    otherCa = dir.resolve("other-ca.pem");
    Files.writeString(
        otherCa, new HeldCertificate.Builder().commonName("someone else").build().certificatePem());
    // GreenMail's SMTPS serves the key store named here (read when its first TLS server starts).
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    char[] pw = "changeit".toCharArray();
    ks.setKeyEntry(
        "greenmail", server.keyPair().getPrivate(), pw, new Certificate[] {server.certificate()});
    Path store = dir.resolve("smtp.p12");
    try (OutputStream out = Files.newOutputStream(store)) {
      ks.store(out, pw);
    }
    System.setProperty(
        DummySSLServerSocketFactory.GREENMAIL_KEYSTORE_FILE_PROPERTY, store.toString());
    System.setProperty(
        DummySSLServerSocketFactory.GREENMAIL_KEYSTORE_PASSWORD_PROPERTY, "changeit");
    System.setProperty(DummySSLServerSocketFactory.GREENMAIL_KEY_PASSWORD_PROPERTY, "changeit");
  }

  @AfterAll
  static void clearProperties() {
    System.clearProperty(DummySSLServerSocketFactory.GREENMAIL_KEYSTORE_FILE_PROPERTY);
    System.clearProperty(DummySSLServerSocketFactory.GREENMAIL_KEYSTORE_PASSWORD_PROPERTY);
    System.clearProperty(DummySSLServerSocketFactory.GREENMAIL_KEY_PASSWORD_PROPERTY);
  }

  static DigestMailer mailer(int port, SpecwatchConfig.Tls tls, Optional<Path> ca, String host) {
    return new DigestMailer(
        new SpecwatchConfig.Email(
            new SpecwatchConfig.Smtp(
                host,
                port,
                tls,
                Optional.of(USER),
                Optional.of(Secret.of(PASSWORD)),
                Duration.ofSeconds(5),
                ca),
            "specwatch@example.org",
            List.of("team@example.org"),
            List.of()));
  }

  static void send(DigestMailer m) throws MessagingException {
    m.send(
        new DigestRenderer.Rendered("weekly", "<p>h</p>", "text", Map.of()),
        List.of("team@example.org"),
        Instant.parse("2026-11-30T09:00:00Z"));
  }

  /** Neither the password nor its AUTH PLAIN / LOGIN encodings crossed the wire readable. */
  static void assertNoPasswordOnTheWire(WireTap tap) {
    String wire = tap.clientBytes();
    assertThat(wire)
        .doesNotContain(PASSWORD)
        .doesNotContain(b64("\0" + USER + "\0" + PASSWORD))
        .doesNotContain(b64(PASSWORD));
  }

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static GreenMail greenMail(com.icegreen.greenmail.util.ServerSetup setup) {
    GreenMail mail = new GreenMail(setup.dynamicPort());
    mail.setUser("team@example.org", USER, PASSWORD);
    mail.start();
    return mail;
  }

  @Test
  void smtpsIsTlsFromTheFirstByteWithTheCertificateVerified() throws Exception {
    GreenMail mail = greenMail(ServerSetupTest.SMTPS);
    try (WireTap tap = new WireTap(mail.getSmtps().getPort())) {
      send(mailer(tap.port(), SpecwatchConfig.Tls.SMTPS, Optional.of(caFile), "127.0.0.1"));
      assertThat(mail.getReceivedMessages()).hasSize(1);
      assertThat(tap.firstClientByte()).as("a TLS handshake record, not EHLO").isEqualTo(0x16);
      assertThat(tap.clientBytes()).doesNotContain("EHLO").doesNotContain("AUTH");
      assertNoPasswordOnTheWire(tap);
    } finally {
      mail.stop();
    }
  }

  @Test
  void smtpsRefusesACertificateItCannotVerifyBeforeTheLogin() throws Exception {
    GreenMail mail = greenMail(ServerSetupTest.SMTPS);
    try (WireTap tap = new WireTap(mail.getSmtps().getPort())) {
      // Signed by nobody the JVM trusts; signed by someone else than the CA file says; valid but
      // for another host name.
      assertThatThrownBy(
              () ->
                  send(
                      mailer(tap.port(), SpecwatchConfig.Tls.SMTPS, Optional.empty(), "127.0.0.1")))
          .isInstanceOf(MessagingException.class);
      assertThatThrownBy(
              () ->
                  send(
                      mailer(
                          tap.port(),
                          SpecwatchConfig.Tls.SMTPS,
                          Optional.of(otherCa),
                          "127.0.0.1")))
          .isInstanceOf(MessagingException.class);
      assertThatThrownBy(
              () ->
                  send(
                      mailer(
                          tap.port(), SpecwatchConfig.Tls.SMTPS, Optional.of(caFile), "localhost")))
          .isInstanceOf(MessagingException.class);
      assertThat(mail.getReceivedMessages()).isEmpty();
      assertNoPasswordOnTheWire(tap);
    } finally {
      mail.stop();
    }
  }

  @Test
  void smtpsAgainstAPlainServerFailsWithoutSendingTheLogin() throws Exception {
    GreenMail mail = greenMail(ServerSetupTest.SMTP);
    try (WireTap tap = new WireTap(mail.getSmtp().getPort())) {
      assertThatThrownBy(
              () ->
                  send(
                      mailer(
                          tap.port(), SpecwatchConfig.Tls.SMTPS, Optional.of(caFile), "127.0.0.1")))
          .isInstanceOf(MessagingException.class);
      assertThat(mail.getReceivedMessages()).isEmpty();
      assertThat(tap.clientBytes()).doesNotContain("AUTH");
      assertNoPasswordOnTheWire(tap);
    } finally {
      mail.stop();
    }
  }

  @Test
  void starttlsIsRequiredAServerWithoutItGetsNoLogin() throws Exception {
    GreenMail mail = greenMail(ServerSetupTest.SMTP); // offers no STARTTLS
    try (WireTap tap = new WireTap(mail.getSmtp().getPort())) {
      assertThatThrownBy(
              () ->
                  send(
                      mailer(
                          tap.port(),
                          SpecwatchConfig.Tls.STARTTLS,
                          Optional.of(caFile),
                          "127.0.0.1")))
          .isInstanceOf(MessagingException.class)
          .hasMessageContaining("STARTTLS");
      assertThat(mail.getReceivedMessages()).isEmpty();
      assertThat(tap.clientBytes())
          .contains("EHLO")
          .doesNotContain("AUTH")
          .doesNotContain("MAIL FROM");
      assertNoPasswordOnTheWire(tap);
    } finally {
      mail.stop();
    }
  }

  @Test
  void starttlsUpgradesBeforeTheLoginAndVerifiesTheCertificate() throws Exception {
    List<String> delivered = new CopyOnWriteArrayList<>();
    List<String> logins = new CopyOnWriteArrayList<>();
    SSLContextHolder tls = new SSLContextHolder(server);
    SMTPServer smtp =
        SMTPServer.port(0)
            .bindAddress(java.net.InetAddress.getLoopbackAddress())
            .hostName("127.0.0.1")
            .startTlsSocketFactory(tls.context())
            .requireTLS()
            .requireAuth()
            .authenticationHandlerFactory(
                new EasyAuthenticationHandlerFactory(
                    (user, password, context) -> {
                      if (!user.equals(USER) || !password.equals(PASSWORD)) {
                        throw new LoginFailedException();
                      }
                      logins.add(user);
                    }))
            .simpleMessageListener(
                new SimpleMessageListener() {
                  @Override
                  public boolean accept(String from, String recipient) {
                    return true;
                  }

                  @Override
                  public void deliver(String from, String recipient, InputStream data)
                      throws IOException {
                    delivered.add(new String(data.readAllBytes(), StandardCharsets.UTF_8));
                  }
                })
            .build();
    smtp.start();
    try (WireTap tap = new WireTap(smtp.getPortAllocated())) {
      send(mailer(tap.port(), SpecwatchConfig.Tls.STARTTLS, Optional.of(caFile), "127.0.0.1"));
      assertThat(logins).containsExactly(USER);
      assertThat(delivered).singleElement().asString().contains("Subject: weekly");
      String wire = tap.clientBytes();
      int upgrade = wire.indexOf("STARTTLS");
      assertThat(upgrade).as("STARTTLS sent").isPositive();
      assertThat(wire.substring(0, upgrade)).doesNotContain("AUTH").doesNotContain("MAIL FROM");
      assertThat(wire.substring(upgrade)).as("the rest is encrypted").doesNotContain("Subject:");
      assertNoPasswordOnTheWire(tap);

      assertThatThrownBy(
              () ->
                  send(
                      mailer(
                          tap.port(),
                          SpecwatchConfig.Tls.STARTTLS,
                          Optional.of(otherCa),
                          "127.0.0.1")))
          .as("a certificate from another CA")
          .isInstanceOf(MessagingException.class);
      assertThat(delivered).hasSize(1);
      assertNoPasswordOnTheWire(tap);
    } finally {
      smtp.stop();
    }
  }

  @Test
  void aPasswordWithoutTlsToAnotherHostIsAConfigErrorWithItsLine() throws Exception {
    Path config = dir.resolve("plain.yaml");
    Files.writeString(
        config,
        "prometheus: {url: \"http://127.0.0.1:9090\"}\npolicies: alerts\n"
            + "digest:\n  email:\n    smtp: {host: smtp.example.com, port: 25, tls: none,"
            + " username: digest, password: x}\n    from: a@example.com\n    to: [b@example.com]\n");
    Files.createDirectories(dir.resolve("alerts"));
    assertThatThrownBy(() -> new ConfigLoader(k -> null).load(config))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("plain.yaml:5:")
        .hasMessageContaining("digest.email.smtp.tls")
        .hasMessageContaining("in clear");
  }

  /** The server side of the STARTTLS upgrade: the certificate made above. */
  record SSLContextHolder(HeldCertificate held) {
    javax.net.ssl.SSLContext context() {
      return new HandshakeCertificates.Builder().heldCertificate(held).build().sslContext();
    }
  }
}
