package dev.specwatch.log;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.specwatch.model.Redaction;
import java.nio.charset.StandardCharsets;

/** Logback's JSON encoder with credentials scrubbed from every line. */
public final class RedactingJsonEncoder extends JsonEncoder {
  @Override
  public byte[] encode(ILoggingEvent event) {
    String line = new String(super.encode(event), StandardCharsets.UTF_8);
    return Redaction.scrub(line).getBytes(StandardCharsets.UTF_8);
  }
}
