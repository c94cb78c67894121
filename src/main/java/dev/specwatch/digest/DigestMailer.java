package dev.specwatch.digest;

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

  private Session session() {
    SpecwatchConfig.Smtp smtp = email.smtp();
    Properties p = new Properties();
    boolean smtps = smtp.tls().equals("smtps");
    String prefix = smtps ? "mail.smtps." : "mail.smtp.";
    p.setProperty("mail.transport.protocol", smtps ? "smtps" : "smtp");
    p.setProperty(prefix + "host", smtp.host());
    p.setProperty(prefix + "port", Integer.toString(smtp.port()));
    String timeout = Long.toString(smtp.timeout().toMillis());
    p.setProperty(prefix + "connectiontimeout", timeout);
    p.setProperty(prefix + "timeout", timeout);
    p.setProperty(prefix + "writetimeout", timeout);
    if (smtp.tls().equals("starttls")) {
      p.setProperty("mail.smtp.starttls.enable", "true");
      p.setProperty("mail.smtp.starttls.required", "true");
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
}
