package dev.specwatch.http;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.tls.Certificates;
import okhttp3.tls.HandshakeCertificates;

/**
 * TLS trust from a PEM file of CA certificates (okhttp-tls), shared by every TLS client of the
 * process: the datasource's HTTP client and the digest's SMTP connection.
 */
public final class Trust {
  private static final Pattern PEM =
      Pattern.compile("-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", Pattern.DOTALL);

  private Trust() {}

  /**
   * Trusts the certificates of a PEM file, and only those.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or holds no usable
   *     certificate
   */
  public static HandshakeCertificates fromPemFile(Path caFile) {
    String pem;
    try {
      pem = dev.specwatch.model.TextFiles.read(caFile);
    } catch (dev.specwatch.model.TextFiles.Unreadable e) {
      throw new IllegalArgumentException(
          "cannot read the CA file " + caFile + ": " + e.getMessage(), e);
    }
    List<String> blocks = new ArrayList<>();
    Matcher m = PEM.matcher(pem);
    while (m.find()) {
      blocks.add(m.group());
    }
    if (blocks.isEmpty()) {
      throw new IllegalArgumentException("no PEM certificate in the CA file " + caFile);
    }
    HandshakeCertificates.Builder builder = new HandshakeCertificates.Builder();
    for (String block : blocks) {
      try {
        builder.addTrustedCertificate(Certificates.decodeCertificatePem(block));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "cannot use the CA file " + caFile + ": " + e.getMessage(), e);
      }
    }
    return builder.build();
  }
}
