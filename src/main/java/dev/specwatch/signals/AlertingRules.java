package dev.specwatch.signals;

import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.model.RuleName;
import dev.specwatch.model.Threshold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Renders Prometheus alerting rules equivalent to the threshold rules of the policies, for teams
 * that route through Alertmanager without running the daemon (`specwatch rules render --alerts`).
 * Each rule fires on the same PromQL the daemon evaluates, gated on the recipe's min_drafts, with
 * its {@code for} and {@code keep_firing_for}. Prometheus has no hysteresis: {@code clear_above} is
 * not rendered (keep_firing_for is the damping there). Regression and throughput rules need the
 * daemon's significance test and are not rendered.
 */
public final class AlertingRules {
  private AlertingRules() {}

  public static String render(List<Policy> policies, Duration window, Duration interval) {
    StringBuilder out = new StringBuilder();
    out.append(
            "# Prometheus alerting rules rendered by `specwatch rules render --alerts` from the\n")
        .append("# policies in alerts/ (threshold rules only; clear_above, regression and\n")
        .append("# throughput need the daemon). Evaluated over ")
        .append(Durations.format(window))
        .append(". Do not edit: re-render.\n")
        .append("groups:\n");
    if (policies.isEmpty()) {
      out.setLength(out.length() - "groups:\n".length());
      return out.append("groups: []\n").toString();
    }
    for (Policy p : policies) {
      List<String[]> rules = new ArrayList<>();
      EngineProfile profile = EngineProfile.of(p.engine());
      QueryScope scope = QueryScope.of(p, window);
      String gate =
          "\n  and on ("
              + PromQl.labelList(p.matchLabelNames())
              + ")\n("
              + profile.query(Signal.DRAFTS_IN_WINDOW, scope)
              + " >= "
              + p.minDrafts()
              + ")";
      Policy.Thresholds t = p.thresholds();
      String acceptance = "(" + profile.query(Signal.ACCEPTANCE_RATE, scope) + ")";
      for (Threshold th : t.acceptanceRateLines()) {
        rules.add(
            line(
                p,
                th,
                th.floor() ? RuleName.ACCEPTANCE_RATE : RuleName.ACCEPTANCE_RATE_ABOVE,
                acceptance,
                gate,
                "acceptance rate {{ $value | humanizePercentage }} is ",
                percent(th.level())));
      }
      String length = "(" + profile.query(Signal.MEAN_ACCEPTED_LENGTH, scope) + ")";
      for (Threshold th : t.meanAcceptedLengthLines()) {
        rules.add(
            line(
                p,
                th,
                th.floor() ? RuleName.MEAN_ACCEPTED_LENGTH : RuleName.MEAN_ACCEPTED_LENGTH_ABOVE,
                length,
                gate,
                "mean accepted length {{ $value | printf \"%.2f\" }} is ",
                number(th.level())));
      }
      // One position of the per-position series: `and` with a one-sample vector labelled with it.
      t.positionAcceptance()
          .forEach(
              (position, th) ->
                  rules.add(
                      rule(
                          p,
                          "position_acceptance",
                          position,
                          "("
                              + profile.query(Signal.POSITION_ACCEPTANCE, scope)
                              + ")\n  < "
                              + number(th.level())
                              + "\n  and on (position) label_replace(vector(1), \"position\", \""
                              + position
                              + "\", \"\", \"\")"
                              + gate,
                          th,
                          "acceptance at draft position "
                              + position
                              + " {{ $value | humanizePercentage }} is below "
                              + percent(th.level()))));
      if (rules.isEmpty()) {
        continue;
      }
      out.append("  - name: specwatch-").append(p.recipe()).append('\n');
      out.append("    interval: ").append(Durations.format(interval)).append('\n');
      out.append("    rules:\n");
      for (String[] r : rules) {
        out.append(r[0]);
      }
    }
    return out.toString();
  }

  /** A floor's or a ceiling's rule on one signal: {@code (query) < line} or {@code > line}. */
  private static String[] line(
      Policy p,
      Threshold th,
      RuleName rule,
      String query,
      String gate,
      String described,
      String level) {
    return rule(
        p,
        rule.id(),
        null,
        query + "\n  " + th.direction().operator() + " " + number(th.level()) + gate,
        th,
        described + th.direction().word() + " " + level);
  }

  private static String[] rule(
      Policy p, String rule, Integer position, String expr, Threshold th, String description) {
    StringBuilder r = new StringBuilder();
    r.append("      - alert: ").append(alertname(rule)).append('\n');
    r.append("        expr: |-\n");
    for (String line : expr.split("\n", -1)) {
      r.append("          ").append(line).append('\n');
    }
    r.append("        for: ").append(Durations.format(p.forDuration())).append('\n');
    if (!p.keepFiringFor().isZero()) {
      r.append("        keep_firing_for: ")
          .append(Durations.format(p.keepFiringFor()))
          .append('\n');
    }
    Map<String, String> labels = new TreeMap<>(p.labels());
    labels.put("recipe", p.recipe());
    labels.put("rule", rule);
    labels.put("severity", th.severity().orElse(p.notification().severity()).key());
    if (position != null) {
      labels.put("position", position.toString());
    }
    r.append("        labels:\n");
    labels.forEach(
        (k, v) ->
            r.append("          ").append(k).append(": ").append(PromQl.quote(v)).append('\n'));
    r.append("        annotations:\n");
    r.append("          summary: ")
        .append(
            PromQl.quote(
                (th.floor() ? "MTP efficiency regressed: " : "MTP acceptance too high: ")
                    + p.recipe()
                    + " "
                    + rule
                    + (position == null ? "" : "[" + position + "]")))
        .append('\n');
    r.append("          description: ").append(PromQl.quote(description)).append('\n');
    p.runbookUrl()
        .ifPresent(u -> r.append("          runbook_url: ").append(PromQl.quote(u)).append('\n'));
    return new String[] {r.toString()};
  }

  /** The alertname of a rule, shared with the daemon's Alertmanager pushes. */
  public static String alertname(String rule) {
    StringBuilder out = new StringBuilder("SpecDecode");
    for (String part : rule.split("_")) {
      if (!part.isEmpty()) {
        out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return out.toString();
  }

  private static String number(double v) {
    String s = String.format(Locale.ROOT, "%.4f", v);
    return s.replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  private static String percent(double v) {
    return number(v * 100) + " %";
  }
}
