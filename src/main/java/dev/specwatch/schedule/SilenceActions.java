package dev.specwatch.schedule;

import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Silences;
import dev.specwatch.model.Globs;
import dev.specwatch.model.Policy;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Silences added and expired through the daemon (the web UI's form, {@code POST/DELETE
 * /api/v1/silences}): checked against the running policies and logged. The engine reads the same
 * file every evaluation.
 */
final class SilenceActions {
  private static final Logger logger = LoggerFactory.getLogger(SilenceActions.class);

  private SilenceActions() {}

  static Silence add(
      Silences store,
      List<Policy> policies,
      Clock clock,
      String recipe,
      Optional<String> rule,
      Duration duration,
      String comment,
      String author)
      throws IOException {
    List<String> names = policies.stream().map(Policy::recipe).toList();
    if (names.stream().noneMatch(n -> Globs.matches(recipe, n))) {
      throw new IllegalArgumentException(
          "'" + recipe + "' matches no recipe; the recipes are " + String.join(", ", names));
    }
    if (rule.isPresent() && !Policy.RULE_NAMES.contains(rule.get())) {
      throw new IllegalArgumentException(
          "unknown rule '" + rule.get() + "'; one of " + String.join(", ", Policy.RULE_NAMES));
    }
    Instant now = clock.instant();
    Silence s =
        new Silence(
            UUID.randomUUID().toString().substring(0, 8),
            recipe,
            rule,
            now,
            now.plus(duration),
            comment,
            author);
    store.add(s);
    logger.info(
        "silence {} added by {}: {}{} until {} ({})",
        s.id(),
        author,
        recipe,
        rule.map(r -> " " + r).orElse(""),
        s.endsAt(),
        comment);
    return s;
  }

  static boolean expire(Silences store, Clock clock, String id) throws IOException {
    boolean expired = store.expire(id, clock.instant());
    if (expired) {
      logger.info("silence {} expired", id);
    }
    return expired;
  }
}
