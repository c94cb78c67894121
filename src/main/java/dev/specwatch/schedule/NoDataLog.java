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
 * recipe page. At most {@link #PER_CYCLE} recipes are explained per evaluation, so a fleet of typos
 * costs a bounded number of queries per cycle.
 */
final class NoDataLog {
  private static final Logger logger = LoggerFactory.getLogger(Daemon.class);
  static final int PER_CYCLE = 20;
  static final Duration REFRESH = Duration.ofMinutes(1);

  private record Hint(String text, Instant at) {}

  private final Map<String, Hint> hints = new ConcurrentHashMap<>();

  synchronized void report(List<Policy> policies, Evaluation e, PrometheusClient client) {
    if (e.anyDatasourceError()) {
      return; // the datasource log says why; no_data is not known while queries fail
    }
    Set<String> noData = new HashSet<>();
    Set<String> evaluated = new HashSet<>(); // this shard's recipes: the others are not known here
    for (RecipeSnapshot r : e.recipes()) {
      evaluated.add(r.recipe());
      if (r.state() == RecipeState.NO_DATA) {
        noData.add(r.recipe());
      }
    }
    List<Policy> due = new ArrayList<>();
    for (Policy p : policies) {
      Hint known = hints.get(p.recipe());
      // "nothing scraped yet" is looked up again at the next cycle: it often lasts one scrape
      boolean stale =
          known == null
              || known.text().startsWith(NoDataHints.NOTHING_SCRAPED)
              || !known.at().plus(REFRESH).isAfter(e.evaluatedAt());
      if (noData.contains(p.recipe()) && stale && due.size() < PER_CYCLE) {
        due.add(p);
      }
    }
    if (!due.isEmpty()) {
      NoDataHints.of(due, e, client, Optional.of(e.evaluatedAt()))
          .forEach(
              (recipe, hint) -> {
                Hint before = hints.put(recipe, new Hint(hint, e.evaluatedAt()));
                if (before == null || !before.text().equals(hint)) {
                  logger.warn("recipe {} reads no data, so it cannot alert: {}", recipe, hint);
                }
              });
    }
    for (String recipe : List.copyOf(hints.keySet())) {
      if (evaluated.contains(recipe) && !noData.contains(recipe)) {
        hints.remove(recipe);
        logger.info("recipe {} has data again", recipe);
      }
    }
  }

  Optional<String> hint(String recipe) {
    return Optional.ofNullable(hints.get(recipe)).map(Hint::text);
  }
}
