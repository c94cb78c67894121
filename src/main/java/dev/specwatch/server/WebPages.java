package dev.specwatch.server;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import com.github.mustachejava.MustacheFactory;
import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertPhase;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Policy;
import dev.specwatch.model.RuleName;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.Breach;
import dev.specwatch.signals.EvaluationJson;
import dev.specwatch.signals.RecipeSnapshot;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The web UI's pages, rendered on the server from Mustache templates in {@code dev/specwatch/ui/}.
 * Every value goes through Mustache's HTML escaping ({@code {{x}}}); the only unescaped output
 * ({@code {{{svg}}}}) is SVG built here from numbers.
 */
final class WebPages {
  private static final MustacheFactory MUSTACHE = new DefaultMustacheFactory("dev/specwatch/ui");

  private WebPages() {}

  static String render(String template, Map<String, Object> view) {
    Mustache m = MUSTACHE.compile(template + ".mustache");
    StringWriter out = new StringWriter();
    m.execute(out, view);
    return out.toString();
  }

  /** The fields every page's layout uses. */
  static Map<String, Object> page(String title, String nav, Request r) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("title", title);
    v.put("nav_" + nav, true);
    v.put("csrf", r.csrf());
    return v;
  }

  static String href(String recipe) {
    return "/recipes/" + URLEncoder.encode(recipe, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static String number(Double v, int decimals) {
    return v == null || !Double.isFinite(v)
        ? "–"
        : String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  /**
   * A rule's value or threshold: acceptance rules (the learned {@code change} rule's too) in
   * percent (one unit everywhere), others as is.
   */
  static String ruleValue(String rule, Double v) {
    return rule.contains("acceptance") || isChange(rule) ? percent(v) : number(v, 3);
  }

  /** Whether {@code rule} (an alert's rule id) is the learned {@code change} rule. */
  private static boolean isChange(String rule) {
    return RuleName.of(rule).filter(r -> r == RuleName.CHANGE).isPresent();
  }

  static String percent(Double v) {
    return v == null || !Double.isFinite(v) ? "–" : String.format(Locale.ROOT, "%.1f %%", v * 100);
  }

  static String time(Instant t) {
    return t == null ? "" : t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
  }

  /** Why a recipe is in its state, in a few words. */
  static String reason(RecipeSnapshot s) {
    if (s.error().isPresent()) {
      return s.error().get();
    }
    if (!s.breaches().isEmpty()) {
      List<String> parts = new ArrayList<>();
      for (Breach b : s.breaches()) {
        parts.add(
            b.id()
                + " "
                + ruleValue(b.rule(), b.value())
                + " "
                + b.direction().word()
                + " "
                + ruleValue(b.rule(), b.threshold()));
      }
      return String.join("; ", parts);
    }
    if (s.signals().plain() && s.state() == dev.specwatch.signals.RecipeState.OK) {
      return "no speculation: "
          + number(s.signals().generationTokensPerSecond(), 1)
          + " tokens/s at "
          + number(s.signals().runningRequests(), 1)
          + " running requests ("
          + number(s.signals().tokensPerSecondPerRequest(), 1)
          + " per request)";
    }
    return switch (s.state()) {
      case OK -> "every threshold met";
      case IDLE ->
          s.signals().plain() ? "no tokens generated in the window" : "no drafts in the window";
      case LOW_TRAFFIC -> "too few drafts for a verdict";
      case NO_DATA -> "no series match (wrong match, target down or not deployed)";
      default -> s.state().key();
    };
  }

  /**
   * Why a recipe is in its state, its active {@code alerts} considered: a recipe back above its
   * line whose alert still fires says so ({@link #recovering}) instead of "every threshold met".
   */
  static String reason(RecipeSnapshot s, List<ActiveAlert> alerts, Policy p) {
    String why =
        recovering(alerts, p).filter(r -> s.breaches().isEmpty()).orElseGet(() -> reason(s));
    return s.coveredSeconds()
        .map(seconds -> why + " · " + EvaluationJson.windowNotFull(seconds))
        .orElse(why);
  }

  /**
   * Why a recipe whose values meet every threshold still has a firing alert: hysteresis holds it
   * until the value rises above the rule's clear line ("firing · recovering: acceptance rate 48.0
   * %, clears above 50.0 %"). Empty when no alert of the recipe fires.
   */
  static Optional<String> recovering(List<ActiveAlert> alerts, Policy p) {
    for (ActiveAlert a : alerts) {
      if (a.phase() != AlertPhase.FIRING || a.key().specwatch()) {
        continue;
      }
      Optional<Threshold> t =
          p == null
              ? Optional.empty()
              : RuleName.of(a.rule())
                  .flatMap(
                      r ->
                          switch (r) {
                            case ACCEPTANCE_RATE -> p.thresholds().acceptanceRate();
                            case MEAN_ACCEPTED_LENGTH -> p.thresholds().meanAcceptedLength();
                            case ACCEPTANCE_RATE_ABOVE ->
                                p.thresholds().ceilings().acceptanceRate();
                            case MEAN_ACCEPTED_LENGTH_ABOVE ->
                                p.thresholds().ceilings().meanAcceptedLength();
                            case POSITION_ACCEPTANCE ->
                                Optional.ofNullable(
                                    p.thresholds().positionAcceptance().get(a.position()));
                            default -> Optional.empty();
                          });
      String rule = RuleName.wordsOf(a.rule()) + (a.position() == null ? "" : " " + a.position());
      return Optional.of(
          "firing · recovering: "
              + rule
              + " "
              + ruleValue(a.rule(), a.value())
              + t.map(
                      x ->
                          ", clears "
                              + x.direction().clearWord()
                              + " "
                              + ruleValue(a.rule(), x.clearLevel()))
                  .orElse(
                      isChange(a.rule())
                          ? ", clears once the window holds at or above halfway between its"
                              + " floor and its learned level for "
                              + dev.specwatch.model.Durations.format(
                                  dev.specwatch.alerting.ChangeRule.CLEAR_FOR)
                              + ", or sooner on the evidence"
                          : ", the alert has not cleared yet"));
    }
    return Optional.empty();
  }

  /** Text for an SVG or HTML attribute or element: {@code & < > " '} escaped. */
  static String escapeAttribute(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;")
        .replace("'", "&#39;");
  }

  /** Per-position acceptance as horizontal bars, with the position's threshold if any. */
  static List<Map<String, Object>> positions(RecipeSnapshot s, Policy p) {
    List<Map<String, Object>> out = new ArrayList<>();
    List<Double> a = s.signals().positionAcceptance();
    for (int i = 0; i < a.size(); i++) {
      Map<String, Object> m = new LinkedHashMap<>();
      Double v = a.get(i);
      m.put("position", i);
      m.put("value", percent(v));
      m.put("width", v == null ? 0 : Math.round(Math.max(0, Math.min(1, v)) * 200));
      Threshold t = p == null ? null : p.thresholds().positionAcceptance().get(i);
      m.put("threshold", t == null ? "" : line(t, true));
      out.add(m);
    }
    return out;
  }

  /** Signals against their thresholds. */
  static List<Map<String, Object>> signals(RecipeSnapshot s, Policy p) {
    List<Map<String, Object>> out = new ArrayList<>();
    if (s.signals().plain()) {
      out.add(
          row(
              "generation tokens/s",
              number(s.signals().generationTokensPerSecond(), 1),
              Optional.empty()));
      out.add(row("running requests", number(s.signals().runningRequests(), 1), Optional.empty()));
      Map<String, Object> perRequest =
          row(
              "tokens/s per running request",
              number(s.signals().tokensPerSecondPerRequest(), 1),
              Optional.empty());
      if (p != null && p.thresholds().throughput().isPresent()) {
        Policy.Throughput t = p.thresholds().throughput().get();
        perRequest.put(
            "threshold",
            "at most "
                + percent(t.maxRelativeDrop())
                + " below the last "
                + dev.specwatch.model.Durations.format(t.baseline()));
      }
      out.add(perRequest);
      return out;
    }
    List<Threshold> acc = p == null ? List.of() : p.thresholds().acceptanceRateLines();
    List<Threshold> len = p == null ? List.of() : p.thresholds().meanAcceptedLengthLines();
    out.add(row("acceptance rate", percent(s.signals().acceptanceRate()), acc, true));
    out.add(
        row(
            "mean accepted length (of k + 1)",
            length(s.signals().meanAcceptedLength(), p),
            len,
            false));
    out.add(row("draft tokens/s", number(s.signals().draftTokensPerSecond(), 1), Optional.empty()));
    out.add(
        row(
            "accepted tokens/s",
            number(s.signals().acceptedTokensPerSecond(), 1),
            Optional.empty()));
    out.add(row("drafts in window", number(s.signals().draftsInWindow(), 0), Optional.empty()));
    out.add(
        row(
            "rejected draft tokens/s (wasted)",
            number(s.signals().rejectedDraftTokensPerSecond(), 1),
            Optional.empty()));
    Double share = s.signals().outputShareFromDrafts();
    out.add(
        row(
            "output tokens from accepted drafts",
            share == null ? "–" : percent(share),
            Optional.empty()));
    if (s.signals().draftOverhead() != null) {
      out.add(
          row(
              "draft overhead (share of time drafting)",
              number(s.signals().draftOverhead(), 3),
              Optional.empty()));
    }
    return out;
  }

  private static Map<String, Object> row(String name, String value, Optional<Threshold> t) {
    return row(name, value, t.stream().toList(), false);
  }

  /**
   * A signal's row with its lines ("below 50.0 %, clears above 55.0 %; above 97.0 %"); {@code
   * asPercent} for acceptance (one unit everywhere: a percentage).
   */
  private static Map<String, Object> row(
      String name, String value, List<Threshold> lines, boolean asPercent) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("value", value);
    List<String> described = new ArrayList<>();
    for (Threshold x : lines) {
      String clear =
          x.clearAt().isEmpty()
              ? ""
              : ", clears "
                  + x.direction().clearWord()
                  + " "
                  + level(x.clearAt().getAsDouble(), asPercent);
      described.add(line(x, asPercent) + clear);
    }
    m.put("threshold", String.join("; ", described));
    return m;
  }

  /**
   * A line as people read it, on the page and on its chart: {@code below 45.0 %}, {@code above
   * 3.90}.
   */
  static String line(Threshold x, boolean asPercent) {
    return x.direction().word() + " " + level(x.level(), asPercent);
  }

  private static String level(double v, boolean asPercent) {
    return asPercent ? percent(v) : number(v, 2);
  }

  /** Mean accepted length against its ceiling, k + 1 tokens a step: {@code 2.80 of 4}. */
  static String length(Double length, Policy p) {
    String value = number(length, 2);
    return p == null || length == null || p.numSpeculativeTokens() == 0
        ? value
        : value + " of " + (p.numSpeculativeTokens() + 1);
  }

  static Map<String, Object> alert(ActiveAlert a, List<Silence> silences, Instant now) {
    return alert(a, silences, now, null);
  }

  /**
   * An active alert for the tables: specwatch's own alerts as such (no recipe, no threshold), the
   * time it fired (or since when it is pending), its severity and the policy's runbook.
   */
  static Map<String, Object> alert(
      ActiveAlert a, List<Silence> silences, Instant now, Policy policy) {
    Map<String, Object> m = new LinkedHashMap<>();
    boolean own = a.key().specwatch();
    m.put("id", a.id());
    m.put("recipe", own ? "specwatch itself" : a.recipe());
    m.put("own", own);
    m.put("href", own ? "/status" : href(a.recipe()));
    m.put("rule", a.position() == null ? a.rule() : a.rule() + "[" + a.position() + "]");
    m.put("state", a.phase().name().toLowerCase(Locale.ROOT));
    m.put("firing", a.phase() == AlertPhase.FIRING);
    m.put("value", own ? "–" : ruleValue(a.rule(), a.value()));
    m.put("threshold", own ? "–" : ruleValue(a.rule(), a.threshold()));
    m.put("severity", a.severity());
    m.put(
        "since",
        a.firingSince() != null
            ? "fired " + time(a.firingSince())
            : "pending since " + time(a.activeSince()));
    if (policy != null) {
      // Only web links: a javascript: URL from a policy file must not become a link.
      policy
          .runbookUrl()
          .filter(u -> u.startsWith("https://") || u.startsWith("http://"))
          .ifPresent(u -> m.put("runbook", u));
    }
    boolean silenced =
        silences.stream().anyMatch(s -> s.matches(a.recipe(), a.rule(), now))
            || FleetSummary.maintenanceOf(policy, now).isPresent();
    m.put("silenced", silenced);
    return m;
  }

  static Map<String, Object> transition(Transition t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("at", time(t.at()));
    m.put("recipe", t.recipe());
    m.put("href", t.key().specwatch() ? "/status" : href(t.recipe()));
    m.put("rule", t.position() == null ? t.rule() : t.rule() + "[" + t.position() + "]");
    m.put("kind", t.kind().name().toLowerCase(Locale.ROOT));
    m.put("firing", t.kind() == Transition.Kind.FIRING);
    m.put("reason", t.reason());
    m.put("silenced", t.silenced());
    return m;
  }

  static Map<String, Object> silence(Silence s, Instant now) {
    Map<String, Object> m = new LinkedHashMap<>(s.json(now));
    m.put("rule", s.rule().orElse("every rule"));
    m.put("ends", time(s.endsAt()));
    m.put("left", s.activeAt(now) ? human(Duration.between(now, s.endsAt())) : "expired");
    return m;
  }

  static String human(Duration d) {
    long m = Math.max(0, d.toMinutes());
    return m >= 120 ? (m / 60) + "h " + (m % 60) + "m" : m + "m";
  }
}
