package dev.specwatch.schedule;

import dev.specwatch.model.SpecwatchConfig;
import java.util.ArrayList;
import java.util.List;
import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The parts of a reload that come after the new wiring is live, and what it reports. */
final class Reloads {
  private static final Logger logger = LoggerFactory.getLogger(Reloads.class);

  private Reloads() {}

  /** A change of the Quartz schedule. */
  interface Step {
    void apply() throws SchedulerException;
  }

  /**
   * Applies the new evaluation interval and digest schedule; what failed, in words (each failure
   * leaves that part as it was, the other is still tried).
   */
  static List<String> reschedule(Step interval, Step digest) {
    List<String> notApplied = new ArrayList<>();
    try {
      interval.apply();
    } catch (SchedulerException e) {
      notApplied.add("evaluation.interval not applied (evaluating as before): " + e.getMessage());
    }
    try {
      digest.apply();
    } catch (SchedulerException e) {
      notApplied.add("digest schedule not applied (the previous one stays): " + e.getMessage());
    }
    return notApplied;
  }

  /** Logs the reload as it really went; the problems for the caller, empty when all applied. */
  static List<String> report(SpecwatchConfig next, List<String> notApplied) {
    if (notApplied.isEmpty()) {
      logger.info(
          "config reloaded: {} recipe(s); alerts of unchanged rules keep their state",
          next.recipes().size());
    } else {
      logger.error(
          "config reloaded ({} recipe(s), its rules and notifiers are live), except: {}",
          next.recipes().size(),
          String.join("; ", notApplied));
    }
    return List.copyOf(notApplied);
  }

  /**
   * The settings of {@code next} that differ from {@code running} and take effect only after a
   * restart.
   *
   * @param stateLocation where the state is kept now (the file directory or the database)
   */
  static List<String> needRestart(
      SpecwatchConfig running, SpecwatchConfig next, String stateLocation) {
    List<String> out = new ArrayList<>();
    if (!next.sameStateAs(running)) {
      out.add(
          "the state section changed: takes effect after a restart (still using "
              + stateLocation
              + ")");
    }
    if (!next.server().listen().equals(running.server().listen())) {
      out.add(
          "server.listen changed to " + next.server().listen() + ": takes effect after a restart");
    }
    return out;
  }
}
