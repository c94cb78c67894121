package dev.specwatch.notify;

import dev.specwatch.alerting.Silence;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * The daemon's silences, as the web UI adds and expires them ({@code Daemon}), for notifiers whose
 * receiver can act on an alert (Slack's buttons).
 */
public interface Silencer {
  Silence addSilence(
      String recipe, Optional<String> rule, Duration duration, String comment, String author)
      throws IOException;

  boolean expireSilence(String id) throws IOException;
}
