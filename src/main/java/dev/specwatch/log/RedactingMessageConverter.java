package dev.specwatch.log;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.specwatch.model.Redaction;

/** {@code %msg} with credentials scrubbed: the last line of defence in text logs. */
public final class RedactingMessageConverter extends MessageConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return Redaction.scrub(super.convert(event));
  }
}
