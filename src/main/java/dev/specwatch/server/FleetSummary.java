package dev.specwatch.server;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Silence;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The fleet page's line at a glance: how many recipes breach, alert, are silenced and have no data,
 * over which window; and specwatch's own alerts, which belong to no recipe row.
 */
final class FleetSummary {
  private FleetSummary() {}

  /** Whether an active silence covers every rule of {@code recipe} now, or any of its rules. */
  static Optional<Silence> silenceOf(String recipe, List<Silence> silences, Instant now) {
    return silences.stream()
        .filter(s -> s.activeAt(now) && s.matches(recipe, s.rule().orElse("*"), now))
        .findFirst();
  }

  /** The policy's maintenance window that holds at {@code now}, if any (none without a policy). */
  static Optional<Policy.Maintenance> maintenanceOf(Policy policy, Instant now) {
    return policy == null
        ? Optional.empty()
        : policy.maintenance().stream().filter(m -> m.covers(now)).findFirst();
  }

  /** Whether the recipe's notifications are held now: a silence or a maintenance window. */
  static boolean silenced(String recipe, Policy policy, List<Silence> silences, Instant now) {
    return silenceOf(recipe, silences, now).isPresent() || maintenanceOf(policy, now).isPresent();
  }

  /**
   * "6 recipes over the 1m window: 1 breaching, 1 alerting, 1 pending, 1 silenced, 2 without data"
   * (pending only when an alert waits out its {@code for}).
   */
  static String line(
      Evaluation e,
      AlertState state,
      List<Silence> silences,
      Map<String, Policy> policies,
      Instant now) {
    List<RecipeSnapshot> recipes = e.recipes();
    long breaching = recipes.stream().filter(r -> r.state() == RecipeState.BREACH).count();
    long noData =
        recipes.stream()
            .filter(r -> r.state() == RecipeState.NO_DATA || r.state() == RecipeState.ERROR)
            .count();
    Set<String> firing = new HashSet<>();
    Set<String> pendingOnly = new HashSet<>();
    for (ActiveAlert a : state.alerts().values()) {
      if (a.phase() == AlertPhase.FIRING) {
        firing.add(a.recipe());
      } else if (a.phase() == AlertPhase.PENDING) {
        pendingOnly.add(a.recipe());
      }
    }
    pendingOnly.removeAll(firing);
    long alerting = recipes.stream().filter(r -> firing.contains(r.recipe())).count();
    long pending = recipes.stream().filter(r -> pendingOnly.contains(r.recipe())).count();
    long silenced =
        recipes.stream()
            .filter(r -> silenced(r.recipe(), policies.get(r.recipe()), silences, now))
            .count();
    List<String> parts = new ArrayList<>();
    parts.add(breaching + " breaching");
    parts.add(alerting + " alerting");
    if (pending > 0) {
      // An alert waiting out its `for`: counted, so the line adds up with the alerts column.
      parts.add(pending + " pending");
    }
    parts.add(silenced + " silenced");
    parts.add(noData + " without data");
    return recipes.size()
        + " recipe"
        + (recipes.size() == 1 ? "" : "s")
        + " over the "
        + Durations.format(e.window())
        + " evaluation window: "
        + String.join(", ", parts);
  }

  /** specwatch's own active alerts (datasource, notifier, state), for a line of their own. */
  static List<String> ownAlerts(AlertState state) {
    List<String> out = new ArrayList<>();
    for (ActiveAlert a : state.alerts().values()) {
      if (a.key().specwatch()) {
        out.add(a.rule() + " " + a.phase().name().toLowerCase(java.util.Locale.ROOT));
      }
    }
    return out;
  }
}
