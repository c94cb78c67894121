package dev.specwatch.server;

import dev.specwatch.alerting.ActiveAlert;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.RecipeModel;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Policy;
import dev.specwatch.notify.Links;
import dev.specwatch.server.Endpoint.Access;
import dev.specwatch.server.StatusServer.Source;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The web UI's routes: the fleet ({@code /}), a recipe ({@code /recipes/{name}}), alerts, silences
 * (list, create and expire through forms), status, and {@code /login} when the server has a bearer
 * token. Every page reads the same data as the JSON API (docs/OPERATIONS.md).
 */
final class UiRoutes {
  private UiRoutes() {}

  static final List<Endpoint> ENDPOINTS =
      List.of(
          new Endpoint("/", "GET", Access.PAGE, UiRoutes::fleet),
          new Endpoint("/recipes/{}", "GET", Access.PAGE, UiRoutes::recipe),
          new Endpoint("/alerts", "GET", Access.PAGE, UiRoutes::alerts),
          new Endpoint("/silences", "GET", Access.PAGE, (s, r) -> silences(s, r, null, 200)),
          new Endpoint("/silences", "POST", Access.FORM, UiRoutes::createSilence),
          new Endpoint("/silences/{}", "POST", Access.FORM, UiRoutes::expireSilence),
          new Endpoint("/status", "GET", Access.PAGE, UiRoutes::status),
          new Endpoint("/login", "GET", Access.PUBLIC, (s, r) -> LoginPage.form(r, null)),
          new Endpoint("/login", "POST", Access.PUBLIC, LoginPage::submit),
          new Endpoint("/static/style.css", "GET", Access.PUBLIC, (s, r) -> css()));

  private static Response fleet(Source s, Request r) throws IOException {
    Map<String, Object> v = WebPages.page("Fleet", "fleet", r);
    Optional<Evaluation> e = s.lastEvaluation();
    Map<String, Policy> policies = byRecipe(s.policies());
    AlertState state = s.alertState();
    List<Silence> silences = s.silences();
    Instant now = Instant.now();
    e.ifPresent(x -> v.put("summary", FleetSummary.line(x, state, silences, policies, now)));
    List<String> own = FleetSummary.ownAlerts(state);
    if (!own.isEmpty()) {
      v.put("own_alerts", String.join(", ", own));
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    // grouped once: a fleet-wide incident can have thousands of alerts for thousands of rows
    Map<String, List<ActiveAlert>> alertsByRecipe = new HashMap<>();
    state
        .alerts()
        .values()
        .forEach(a -> alertsByRecipe.computeIfAbsent(a.recipe(), k -> new ArrayList<>()).add(a));
    for (RecipeSnapshot snap : e.map(Evaluation::recipes).orElse(List.of())) {
      Map<String, Object> m = new LinkedHashMap<>();
      Policy p = policies.get(snap.recipe());
      List<ActiveAlert> alerts = alertsByRecipe.getOrDefault(snap.recipe(), List.of());
      m.put("recipe", snap.recipe());
      m.put("href", WebPages.href(snap.recipe()));
      m.put("state", snap.state().key());
      m.put("reason", WebPages.reason(snap, alerts, p));
      m.put("acceptance", WebPages.percent(snap.signals().acceptanceRate()));
      m.put("length", WebPages.length(snap.signals().meanAcceptedLength(), p));
      m.put("silenced", FleetSummary.silenced(snap.recipe(), p, silences, now));
      m.put("drafts", WebPages.number(snap.signals().draftTokensPerSecond(), 1));
      boolean plain = p != null && p.numSpeculativeTokens() == 0;
      m.put(
          "svg",
          Sparkline.svg(
              s.sparkline(snap.recipe(), e.get()),
              p == null ? null : p.thresholds().acceptanceRate().map(t -> t.level()).orElse(null),
              plain));
      m.put("alerts", alerts.size());
      m.put(
          "slo", snap.slo().map(x -> WebPages.percent(x.budgetRemaining()) + " left").orElse("–"));
      Links.dashboard(s.grafana(), p == null ? null : p.match().get("model_name"))
          .ifPresent(url -> m.put("dashboard", url));
      rows.add(m);
    }
    v.put("recipes", rows);
    // Without grafana.url there is no dashboard to link: no column of empty cells.
    v.put("grafana", s.grafana().isPresent());
    v.put("evaluated", e.map(x -> WebPages.time(x.evaluatedAt())).orElse(null));
    v.put("refresh", true);
    return Response.html(200, WebPages.render("fleet", v));
  }

  private static Response recipe(Source s, Request r) throws IOException {
    String name = r.pathParam();
    Optional<RecipeSnapshot> snap =
        s.lastEvaluation().stream()
            .flatMap(e -> e.recipes().stream())
            .filter(x -> x.recipe().equals(name))
            .findFirst();
    Policy p = byRecipe(s.policies()).get(name);
    if (snap.isEmpty() && p == null) {
      Map<String, Object> v = WebPages.page("Not found", "fleet", r);
      v.put("message", "No recipe is named " + name + ".");
      return Response.html(404, WebPages.render("message", v));
    }
    Map<String, Object> v = WebPages.page(name, "fleet", r);
    v.put("recipe", name);
    // Read once: with a shared database the alert state is a read of the store.
    List<ActiveAlert> alerts = alertsOf(s.alertState(), name);
    snap.ifPresent(
        x -> {
          v.put("state", x.state().key());
          v.put("reason", WebPages.reason(x, alerts, p));
          s.noDataHint(name).ifPresent(h -> v.put("no_data_hint", h));
          v.put("signals", WebPages.signals(x, p));
          boolean exported = x.form().map(f -> f.positionsExported()).orElse(true);
          v.put("positions", exported ? WebPages.positions(x, p) : List.of());
          List<String> conditional = new ArrayList<>();
          for (Double c : x.signals().conditionalAcceptance()) {
            conditional.add(WebPages.percent(c));
          }
          if (exported && !conditional.isEmpty()) {
            v.put("conditional", String.join(" · ", conditional));
          }
          x.form()
              .ifPresent(
                  f -> {
                    v.put("form_notes", f.notes());
                    if (!f.positionsExported()) {
                      v.put("positions_missing", f.positions());
                    }
                  });
          x.slo()
              .ifPresent(
                  slo ->
                      v.put(
                          "slo",
                          WebPages.percent(slo.compliance())
                              + " compliance, "
                              + WebPages.percent(slo.budgetRemaining())
                              + " of the error budget left"));
        });
    Duration span = RecipeChartViews.span(r.query().get("span"));
    RecipeHistory fromHistory = p == null ? RecipeHistory.NONE : s.recipeHistory(name, span);
    // One read of the alert history: the charts' marks (at most 7 days) and the table below.
    Instant now = Instant.now();
    List<Transition> week = s.history(now.minus(Duration.ofDays(7)));
    if (p != null && p.numSpeculativeTokens() > 0) {
      v.put("has_charts", true);
      v.put("span_links", RecipeChartViews.links(name, span));
      v.put(
          "charts",
          fromHistory
              .charts()
              .map(c -> RecipeChartViews.svgs(c, p, week, now))
              .orElse(
                  List.of(
                      fromHistory.loading()
                          ? "<p class=\"muted\">" + RecipeHistory.LOADING_TEXT + "</p>"
                          : "<p class=\"muted\">No answer from Prometheus for the charts.</p>")));
    }
    if (fromHistory.loading()) {
      v.put("history_loading", RecipeHistory.LOADING_TEXT);
    }
    // The advisor over a stable window (the evaluation window's flips with a minute's traffic).
    fromHistory
        .advice()
        .ifPresent(
            a -> {
              v.put("advice", a.recommendedK());
              v.put("advice_basis", a.basis());
              v.put("advice_warning", a.warning());
            });
    if (p != null && p.speedupBaseline().isPresent()) {
      v.put("speedup_baseline", p.speedupBaseline().get());
      fromHistory
          .speedup()
          .ifPresent(
              sp -> {
                v.put("speedup_svg", sp.svg());
                v.put("speedup_span", sp.span());
                v.put("speedup_most_run", sp.mostRun());
                v.put(
                    "speedup_pays",
                    (sp.paysUpTo() == null
                            ? "Speculation paid at no measured load"
                            : "Speculation paid up to " + sp.paysUpTo() + " running requests")
                        + sp.breaksEven()
                        + ".");
                v.put("speedup_rows", sp.rows());
                v.put("speedup_confounded", sp.confounded());
              });
    }
    if (p != null && p.numSpeculativeTokens() == 0) {
      v.put("plain", true);
      String role = p.plainRole();
      v.put("plain_role", Character.toUpperCase(role.charAt(0)) + role.substring(1));
      v.put("throughput_svg", Sparkline.svg(s.sparkline(name), null, true));
      List<String> of =
          s.policies().stream()
              .filter(x -> x.speedupBaseline().filter(name::equals).isPresent())
              .map(Policy::recipe)
              .toList();
      if (!of.isEmpty()) {
        v.put("baseline_of", String.join(", ", of));
      }
    }
    if (p != null) {
      v.put("k", p.numSpeculativeTokens());
      v.put("match", p.match().toString());
      p.importedFrom()
          .ifPresent(f -> v.put("imported_from", f.written() + " (" + f.method() + ")"));
    }
    RecipeModel learned = s.alertState().models().get(name);
    if (learned != null) {
      v.put("detector", learned.status());
    }
    List<Map<String, Object>> history = new ArrayList<>();
    for (Transition t : week) {
      if (t.recipe().equals(name)) {
        history.add(0, WebPages.transition(t));
      }
    }
    v.put("history", history);
    List<Silence> silences = s.silences();
    v.put("alerts", alerts.stream().map(a -> WebPages.alert(a, silences, now, p)).toList());
    FleetSummary.maintenanceOf(p, now)
        .ifPresent(
            m ->
                v.put(
                    "maintenance",
                    m.describe() + (m.comment().isEmpty() ? "" : " (" + m.comment() + ")")));
    FleetSummary.silenceOf(name, silences, now)
        .ifPresentOrElse(
            x ->
                v.put(
                    "silenced_until",
                    WebPages.time(x.endsAt())
                        + (x.rule().isPresent() ? " (" + x.rule().get() + ")" : " (every rule)")
                        + ": "
                        + x.comment()
                        + " — "
                        + x.createdBy()),
            () -> v.put("silence_recipe", name));
    v.put("refresh", true);
    return Response.html(200, WebPages.render("recipe", v));
  }

  private static Response alerts(Source s, Request r) throws IOException {
    Map<String, Object> v = WebPages.page("Alerts", "alerts", r);
    Instant now = Instant.now();
    List<Silence> silences = s.silences();
    Map<String, Policy> policies = byRecipe(s.policies());
    v.put(
        "active",
        s.alertState().alerts().values().stream()
            .sorted(Comparator.comparing(ActiveAlert::id))
            .map(a -> WebPages.alert(a, silences, now, policies.get(a.recipe())))
            .toList());
    List<Map<String, Object>> recent = new ArrayList<>();
    for (Transition t : s.history(now.minus(Duration.ofDays(1)))) {
      recent.add(0, WebPages.transition(t));
    }
    v.put("recent", recent.subList(0, Math.min(100, recent.size())));
    v.put("refresh", true);
    return Response.html(200, WebPages.render("alerts", v));
  }

  private static Response silences(Source s, Request r, String error, int status)
      throws IOException {
    Map<String, Object> v = WebPages.page("Silences", "silences", r);
    Instant now = Instant.now();
    List<Map<String, Object>> active = new ArrayList<>();
    List<Map<String, Object>> expired = new ArrayList<>();
    for (Silence x : s.silences()) {
      (x.activeAt(now) ? active : expired).add(WebPages.silence(x, now));
    }
    v.put("active", active);
    v.put("expired", expired);
    v.put("error", error);
    v.put("recipe", r.form().getOrDefault("recipe", r.query().getOrDefault("recipe", "")));
    v.put("rule", r.form().getOrDefault("rule", r.query().getOrDefault("rule", "")));
    v.put("duration", r.form().getOrDefault("duration", r.query().getOrDefault("duration", "2h")));
    v.put("comment", r.form().getOrDefault("comment", ""));
    v.put("recipes", s.policies().stream().map(Policy::recipe).toList());
    return Response.html(status, WebPages.render("silences", v));
  }

  private static Response createSilence(Source s, Request r) throws IOException {
    try {
      SilenceApi.add(
          s,
          r.form().getOrDefault("recipe", ""),
          r.form().getOrDefault("rule", ""),
          r.form().getOrDefault("duration", ""),
          r.form().getOrDefault("comment", ""),
          r.form().getOrDefault("author", "").isBlank() ? "web UI" : r.form().get("author"),
          "on".equals(r.form().get("confirm_all")));
    } catch (IllegalArgumentException e) {
      return silences(s, r, e.getMessage(), 400);
    }
    return Response.seeOther("/silences");
  }

  private static Response expireSilence(Source s, Request r) throws IOException {
    s.expireSilence(r.pathParam());
    return Response.seeOther("/silences");
  }

  /** The cluster's members and jobs (state.backend: postgres); nothing without a cluster. */
  private static void clusterView(Source s, Map<String, Object> v) {
    try {
      s.cluster()
          .ifPresent(
              c -> {
                v.put("cluster", c);
                v.put("cluster_self", c.self());
              });
    } catch (IOException e) {
      v.put("cluster_problem", "cannot read the cluster: " + e.getMessage());
    }
  }

  private static Response status(Source s, Request r) throws IOException {
    Map<String, Object> v = WebPages.page("Status", "status", r);
    StatusViews.Status st = s.status();
    v.put("ready", st.ready());
    v.put("not_ready_reason", st.notReadyReason());
    v.put(
        "last_evaluation",
        st.lastEvaluation() == null
            ? "none yet"
            : WebPages.time(Instant.parse(st.lastEvaluation())));
    v.put("outbox_depth", st.outboxDepth());
    v.put("queued", st.transitionsQueued());
    v.put("state_dir", st.stateDir().path());
    v.put("state_writable", st.stateDir().writable());
    v.put("state_problem", st.stateDir().problem());
    v.put("recovered", st.stateDir().recovered());
    v.put("has_recovered", !st.stateDir().recovered().isEmpty());
    StatusViews.Config c = s.config();
    v.put("version", c.version());
    v.put("notifiers", c.notifiers());
    List<Map<String, Object>> health = new ArrayList<>();
    st.notifiers()
        .forEach(
            (name, h) ->
                health.add(
                    Map.of(
                        "name",
                        name,
                        "sent",
                        h.sent(),
                        "failures",
                        h.failures(),
                        "last_sent",
                        h.lastSent() == null ? "never" : h.lastSent(),
                        "last_failure",
                        h.lastFailure() == null ? "never" : h.lastFailure())));
    v.put("notifier_health", health);
    v.put("evaluation", c.evaluation());
    clusterView(s, v);
    v.put("prometheus", c.prometheus());
    v.put("config_recipes", c.recipes());
    v.put("refresh", true);
    return Response.html(200, WebPages.render("status", v));
  }

  private static Response css() throws IOException {
    try (InputStream in = UiRoutes.class.getResourceAsStream("/dev/specwatch/ui/style.css")) {
      return new Response(
          200,
          "text/css; charset=utf-8",
          new String(in.readAllBytes(), StandardCharsets.UTF_8),
          Map.of("Cache-Control", "max-age=300"));
    }
  }

  private static Map<String, Policy> byRecipe(List<Policy> policies) {
    Map<String, Policy> out = new LinkedHashMap<>();
    policies.forEach(p -> out.put(p.recipe(), p));
    return out;
  }

  private static List<ActiveAlert> alertsOf(AlertState state, String recipe) {
    return state.alerts().values().stream().filter(a -> a.recipe().equals(recipe)).toList();
  }
}
