package dev.specwatch.notify;

import dev.specwatch.alerting.TransitionLines;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One structured log line per notification (logger {@code specwatch.notifications}). */
public final class LogNotifier implements Notifier {
  private static final Logger logger = LoggerFactory.getLogger("specwatch.notifications");
  private final String name;

  public LogNotifier(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public DeliveryResult send(Intent intent) {
    logger.info("notify {} {}", name, TransitionLines.line(intent.transition()));
    return DeliveryResult.delivered();
  }
}
