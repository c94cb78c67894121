package dev.specwatch.alerting;

import dev.specwatch.model.Durations;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One structured line per transition (the {@code log} notifier). */
public final class LogSink implements TransitionSink {
  private static final Logger logger = LoggerFactory.getLogger("specwatch.alerts");

  @Override
  public void deliver(Transition t) {
    logger.info(line(t));
  }

  public static String line(Transition t) {
    return String.format(
        Locale.ROOT,
        "alert %s %s recipe=%s rule=%s severity=%s value=%s threshold=%.4f window=%s since=%s%s"
            + " reason=\"%s\"",
        t.kind().name().toLowerCase(Locale.ROOT),
        t.alertId(),
        t.recipe(),
        t.position() == null ? t.rule() : t.rule() + "[" + t.position() + "]",
        t.severity(),
        t.value() == null ? "-" : String.format(Locale.ROOT, "%.4f", t.value()),
        t.threshold(),
        Durations.format(t.window()),
        t.since(),
        t.silenced() ? " silenced=true" : "",
        t.reason().replace("\"", "'"));
  }
}
