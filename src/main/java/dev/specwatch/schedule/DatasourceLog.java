package dev.specwatch.schedule;

import dev.specwatch.signals.Evaluation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs a datasource failure once when it starts or changes, and once when it ends. */
final class DatasourceLog {
  private static final Logger logger = LoggerFactory.getLogger(Daemon.class);
  private String lastError;

  synchronized void report(Evaluation e) {
    String error = e.recipes().stream().flatMap(r -> r.error().stream()).findFirst().orElse(null);
    if (error != null && !error.equals(lastError)) {
      long affected = e.recipes().stream().filter(r -> r.error().isPresent()).count();
      logger.warn(
          "cannot evaluate {} recipe(s): {}; alert state is frozen until queries succeed"
              + " (datasource_unavailable fires after alerting.datasource_failure_for)",
          affected,
          error);
    } else if (error == null && lastError != null) {
      logger.info("datasource reachable again; evaluating normally");
    }
    lastError = error;
  }
}
