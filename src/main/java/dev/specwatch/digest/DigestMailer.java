package dev.specwatch.digest;

import dev.specwatch.http.Trust;
import dev.specwatch.model.Redaction;
import dev.specwatch.model.SpecwatchConfig;
import jakarta.activation.DataHandler;
import jakarta.mail.Authenticator;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.PasswordAuthentication;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.ByteArrayDataSource;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.net.ssl.SSLSocketFactory;

/**
 * Sends a rendered digest over SMTP (Eclipse Angus Mail): STARTTLS or SMTPS, authentication, finite
 * timeouts. The message is multipart/alternative: the plain text, then a multipart/related holding
 * the HTML and its images (Content-ID).
 */
public final class DigestMailer {
  private final SpecwatchConfig.Email email;

  public DigestMailer(SpecwatchConfig.Email email) {
    this.email = email;
  }

  /**
   * @throws MessagingException when the server is unreachable or refuses; the message never
   *     contains the password
   */
  public void send(DigestRenderer.Rendered digest, List<String> recipients, Instant now)
      throws MessagingException {
    Session session = session();
    MimeMessage message = message(session, digest, recipients, now);
    Transport.send(message);
  }

  MimeMessage message(
      Session session, DigestRenderer.Rendered digest, List<String> recipients, Instant now)
      throws MessagingException {
    MimeMessage message = new MimeMessage(session);
    message.setFrom(new InternetAddress(email.from()));
    for (String to : recipients) {
      message.addRecipient(Message.RecipientType.TO, new InternetAddress(to));
    }
    message.setSubject(digest.subject(), "UTF-8");
    message.setSentDate(Date.from(now));

    MimeBodyPart text = new MimeBodyPart();
    text.setText(digest.text(), "UTF-8");

    MimeMultipart related = new MimeMultipart("related");
    MimeBodyPart html = new MimeBodyPart();
    html.setContent(digest.html(), "text/html; charset=UTF-8");
    related.addBodyPart(html);
    for (Map.Entry<String, byte[]> image : digest.images().entrySet()) {
      MimeBodyPart part = new MimeBodyPart();
      part.setDataHandler(new DataHandler(new ByteArrayDataSource(image.getValue(), "image/png")));
      part.setContentID("<" + image.getKey() + ">");
      part.setDisposition(MimeBodyPart.INLINE);
      part.setFileName(image.getKey().replace("@specwatch", "") + ".png");
      related.addBodyPart(part);
    }
    MimeBodyPart relatedPart = new MimeBodyPart();
    relatedPart.setContent(related);

    MimeMultipart alternative = new MimeMultipart("alternative");
    alternative.addBodyPart(text);
    alternative.addBodyPart(relatedPart);
    message.setContent(alternative);
    message.saveChanges();
    return message;
  }

  /**
   * The mail session as configured. STARTTLS is required (a server that does not offer it fails the
   * send before anything, the login included, is sent); SMTPS is TLS from the first byte. In both
   * the server's certificate is verified against the JVM's CAs or {@code ca_file}, host name
   * included.
   */
  Session session() throws MessagingException {
    SpecwatchConfig.Smtp smtp = email.smtp();
    Properties p = new Properties();
    // One protocol, "smtp", with TLS on connect for SMTPS: Transport.send picks the transport by
    // address type (rfc822 -> smtp), so a separate "smtps" protocol would be ignored.
    String prefix = "mail.smtp.";
    p.setProperty("mail.transport.protocol", "smtp");
    p.setProperty(prefix + "host", smtp.host());
    p.setProperty(prefix + "port", Integer.toString(smtp.port()));
    String timeout = Long.toString(smtp.timeout().toMillis());
    p.setProperty(prefix + "connectiontimeout", timeout);
    p.setProperty(prefix + "timeout", timeout);
    p.setProperty(prefix + "writetimeout", timeout);
    switch (smtp.tls()) {
      case STARTTLS -> {
        p.setProperty(prefix + "starttls.enable", "true");
        p.setProperty(prefix + "starttls.required", "true");
        secure(p, prefix, smtp);
      }
      case SMTPS -> {
        p.setProperty(prefix + "ssl.enable", "true");
        secure(p, prefix, smtp);
      }
      case NONE -> {
        // Loopback relays, or relays without a login (the config refuses a password otherwise).
      }
    }
    Authenticator auth = null;
    if (smtp.username().isPresent() && smtp.password().isPresent()) {
      p.setProperty(prefix + "auth", "true");
      String user = smtp.username().get();
      String password = smtp.password().get().reveal();
      // AUTH PLAIN and LOGIN send it Base64-encoded; a 535 reply may quote that back.
      Redaction.registerLogin(user, password);
      auth =
          new Authenticator() {
            @Override
            protected PasswordAuthentication getPasswordAuthentication() {
              return new PasswordAuthentication(user, password);
            }
          };
    }
    return Session.getInstance(p, auth);
  }

  /** Certificate and host-name verification, TLS 1.2 or later. */
  private static void secure(Properties p, String prefix, SpecwatchConfig.Smtp smtp)
      throws MessagingException {
    p.setProperty(prefix + "ssl.checkserveridentity", "true");
    p.setProperty(prefix + "ssl.protocols", "TLSv1.3 TLSv1.2");
    SSLSocketFactory factory;
    try {
      factory =
          smtp.caFile()
              .map(ca -> Trust.fromPemFile(ca).sslSocketFactory())
              .orElseGet(() -> (SSLSocketFactory) SSLSocketFactory.getDefault());
    } catch (IllegalArgumentException e) {
      throw new MessagingException("digest.email.smtp.ca_file: " + e.getMessage());
    }
    // An object property: Angus Mail uses it for SMTPS and for the STARTTLS upgrade alike.
    p.put(prefix + "ssl.socketFactory", factory);
  }
}
