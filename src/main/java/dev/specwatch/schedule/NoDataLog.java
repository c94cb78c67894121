package dev.specwatch.schedule;

import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A recipe that reads {@code no_data} can never alert, so the daemon says so: once, with the reason
 * {@link NoDataHints} finds in what Prometheus does have (a typo in {@code model_name} with a
 * did-you-mean, another engine's series, no speculative decoding), when the recipe starts reading
 * no data, and once when it has data again. The hints are served on {@code /api/v1/recipes} and the
 * recipe page. Explaining them costs one query per evaluation whatever their number ({@link
 * NoDataHints}), so every recipe due is explained at once.
 */
final class NoDataLog {
  private static final Logger logger = LoggerFactory.getLogger(Daemon.class);
  static final Duration REFRESH = Duration.ofMinutes(1);

  /** A reason, and when it was looked up. */
  private record Hint(String text, Instant at) {}

  private final Map<String, Hint> hints = new ConcurrentHashMap<>();
  private final Map<String, Instant> noDataSince = new ConcurrentHashMap<>();

  synchronized void report(List<Policy> policies, Evaluation e, PrometheusClient client) {
    if (e.anyDatasourceError()) {
      return; // the datasource log says why; no_data is not known while queries fail
    }
    Instant now = e.evaluatedAt();
    Set<String> noData = new HashSet<>();
    Set<String> evaluated = new HashSet<>(); // this shard's recipes: the others are not known here
    for (RecipeSnapshot r : e.recipes()) {
      evaluated.add(r.recipe());
      if (r.state() == RecipeState.NO_DATA) {
        noData.add(r.recipe());
        noDataSince.putIfAbsent(r.recipe(), now);
      }
    }
    List<Policy> due = new ArrayList<>();
    for (Policy p : policies) {
      Instant since = noDataSince.get(p.recipe());
      Hint known = hints.get(p.recipe());
      // A recipe reads no_data until its window holds two scrapes of its counters (after a
      // start of Prometheus, of specwatch or of the server): explained only when it lasts a
      // whole window. "Nothing scraped at all" is looked up again at every evaluation.
      boolean lasted = since != null && !since.plus(e.window()).isAfter(now);
      boolean stale =
          known == null
              || known.text().startsWith(NoDataHints.NOTHING_SCRAPED)
              || !known.at().plus(REFRESH).isAfter(now);
      if (noData.contains(p.recipe()) && lasted && stale) {
        due.add(p);
      }
    }
    if (!due.isEmpty()) {
      NoDataHints.of(due, e, client, Optional.of(now))
          .forEach(
              (recipe, hint) -> {
                Hint before = hints.put(recipe, new Hint(hint, now));
                if (before == null || !before.text().equals(hint)) {
                  logger.warn("recipe {} reads no data, so it cannot alert: {}", recipe, hint);
                }
              });
    }
    for (String recipe : evaluated) {
      if (!noData.contains(recipe)) {
        noDataSince.remove(recipe);
        if (hints.remove(recipe) != null) {
          logger.info("recipe {} has data again", recipe);
        }
      }
    }
  }

  Optional<String> hint(String recipe) {
    return Optional.ofNullable(hints.get(recipe)).map(Hint::text);
  }
}
