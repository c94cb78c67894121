package dev.specwatch.alerting;

import dev.specwatch.model.Durations;
import java.util.Locale;

/** A transition as one structured log line (the engine's log and the {@code log} notifier). */
public final class TransitionLines {
  private TransitionLines() {}

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
