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
import java.util.LinkedHashMap;
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
 * NoDataHints}), so every recipe due is explained at once; the log names the first ten on lines of
 * their own and the rest on one line.
 */
final class NoDataLog {
  private static final Logger logger = LoggerFactory.getLogger(Daemon.class);
  static final Duration REFRESH = Duration.ofMinutes(1);

  /** Recipes named on a line of their own per evaluation; the rest share one line. */
  static final int LINES = 10;

  /** Recipes named on the shared line. */
  static final int NAMES = 20;

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
    Map<String, String> said = new LinkedHashMap<>();
    if (!due.isEmpty()) {
      NoDataHints.of(due, e, client, Optional.of(now))
          .forEach(
              (recipe, hint) -> {
                Hint before = hints.put(recipe, new Hint(hint, now));
                if (before == null || !before.text().equals(hint)) {
                  said.put(recipe, hint);
                }
              });
    }
    List<String> recovered = new ArrayList<>();
    for (String recipe : evaluated) {
      if (!noData.contains(recipe)) {
        noDataSince.remove(recipe);
        if (hints.remove(recipe) != null) {
          recovered.add(recipe);
        }
      }
    }
    noData(said).forEach(line -> logger.warn("{}", line));
    dataAgain(recovered).forEach(line -> logger.info("{}", line));
  }

  /**
   * The lines for recipes that newly read no data: one each for the first {@link #LINES}, then one
   * line for the rest (a fleet whose Prometheus lost a job would otherwise log thousands of lines
   * at once; every reason stays on /api/v1/recipes, the recipe pages and in {@code check}).
   */
  static List<String> noData(Map<String, String> hints) {
    List<String> lines = new ArrayList<>();
    hints.entrySet().stream()
        .limit(LINES)
        .forEach(
            h ->
                lines.add(
                    "recipe "
                        + h.getKey()
                        + " reads no data, so it cannot alert: "
                        + h.getValue()));
    if (hints.size() > LINES) {
      int more = hints.size() - LINES;
      lines.add(
          (more == 1
                  ? "1 more recipe reads no data, so it cannot alert: "
                  : more + " more recipes read no data, so they cannot alert: ")
              + names(hints.keySet().stream().skip(LINES).toList())
              + " (each one's reason: specwatch check, /api/v1/recipes, the recipe pages)");
    }
    return lines;
  }

  /** The lines for recipes that have data again: as {@link #noData}, one each, then the rest. */
  static List<String> dataAgain(List<String> recipes) {
    List<String> lines = new ArrayList<>();
    recipes.stream().limit(LINES).forEach(r -> lines.add("recipe " + r + " has data again"));
    if (recipes.size() > LINES) {
      int more = recipes.size() - LINES;
      lines.add(
          (more == 1 ? "1 more recipe has data again: " : more + " more recipes have data again: ")
              + names(recipes.subList(LINES, recipes.size())));
    }
    return lines;
  }

  private static String names(List<String> recipes) {
    String shown = String.join(", ", recipes.subList(0, Math.min(NAMES, recipes.size())));
    return recipes.size() > NAMES ? shown + ", …" : shown;
  }

  Optional<String> hint(String recipe) {
    return Optional.ofNullable(hints.get(recipe)).map(Hint::text);
  }
}
