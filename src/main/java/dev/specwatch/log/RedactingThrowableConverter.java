package dev.specwatch.log;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.specwatch.model.Redaction;

/** {@code %ex} with credentials scrubbed from exception messages. */
public final class RedactingThrowableConverter extends ThrowableProxyConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return Redaction.scrub(super.convert(event));
  }
}
