package dev.specwatch.signals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.specwatch.advisor.Advisor;
import dev.specwatch.model.Durations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The documented JSON shape of an evaluation (docs/CLI.md), shared by {@code check --output json}
 * and the daemon's {@code /api/v1/recipes}. Fields may be added, never renamed; absent values are
 * null, never NaN.
 */
public final class EvaluationJson {
  public static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private EvaluationJson() {}

  public static Map<String, Object> of(Evaluation e) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("evaluated_at", e.evaluatedAt().toString());
    root.put("window", Durations.format(e.window()));
    List<Object> recipes = new ArrayList<>();
    for (RecipeSnapshot r : e.recipes()) {
      recipes.add(recipe(r));
    }
    root.put("recipes", recipes);
    return root;
  }

  public static Map<String, Object> recipe(RecipeSnapshot r) {
    Map<String, Object> recipe = new LinkedHashMap<>();
    recipe.put("name", r.recipe());
    recipe.put("engine", r.engine());
    recipe.put("state", r.state().key());
    SignalValues s = r.signals();
    recipe.put("speculative", !s.plain());
    Map<String, Object> signals = new LinkedHashMap<>();
    signals.put("acceptance_rate", s.acceptanceRate());
    signals.put("mean_accepted_length", s.meanAcceptedLength());
    signals.put("position_acceptance", s.positionAcceptance());
    signals.put("draft_tokens_per_second", s.draftTokensPerSecond());
    signals.put("accepted_tokens_per_second", s.acceptedTokensPerSecond());
    signals.put("generation_tokens_per_second", s.generationTokensPerSecond());
    signals.put("drafts_in_window", s.draftsInWindow());
    signals.put("running_requests", s.runningRequests());
    signals.put("tokens_per_second_per_request", s.tokensPerSecondPerRequest());
    signals.put("draft_overhead", s.draftOverhead());
    signals.put("speedup", s.speedup());
    recipe.put("signals", signals);
    recipe.put("efficiency", efficiency(s));
    r.coveredSeconds()
        .ifPresent(
            seconds -> {
              Map<String, Object> filling = new LinkedHashMap<>();
              filling.put("full", false);
              filling.put("covered_seconds", seconds);
              filling.put("note", windowNotFull(seconds));
              recipe.put("window", filling);
            });
    r.baseline()
        .ifPresent(
            b -> {
              Map<String, Object> baseline = new LinkedHashMap<>();
              baseline.put("window", Durations.format(b.window()));
              baseline.put("acceptance_rate", b.acceptanceRate());
              baseline.put("drafts", b.drafts());
              baseline.put("generation_tokens_per_second", b.generationTokensPerSecond());
              baseline.put("running_requests", b.runningRequests());
              recipe.put("baseline", baseline);
            });
    List<Object> breaches = new ArrayList<>();
    for (Breach b : r.breaches()) {
      Map<String, Object> breach = new LinkedHashMap<>();
      breach.put("rule", b.rule());
      if (b.position() != null) {
        breach.put("position", b.position());
      }
      breach.put("value", b.value());
      breach.put("threshold", b.threshold());
      breach.put("direction", b.direction().word());
      breaches.add(breach);
    }
    recipe.put("breaches", breaches);
    r.error().ifPresent(msg -> recipe.put("error", msg));
    r.form()
        .ifPresent(
            f -> {
              Map<String, Object> form = new LinkedHashMap<>();
              form.put("approximate", f.approximate());
              form.put("positions", f.positions());
              form.put("notes", f.notes());
              if (f.k() != null) {
                Map<String, Object> k = new LinkedHashMap<>();
                k.put("min", f.k().min());
                k.put("max", f.k().max());
                k.put("exact", f.k().exact());
                k.put("source", f.k().says());
                k.put("mean_draft", f.k().meanDraft());
                form.put("engine_k", k);
              }
              if (f.speedupVerdict() != null) {
                form.put("speedup_verdict", f.speedupVerdict());
              }
              if (f.speedupConfounded() != null) {
                form.put("speedup_confounded", f.speedupConfounded());
              }
              recipe.put("form", form);
            });
    r.slo().ifPresent(slo -> recipe.put("slo", slo(slo)));
    Optional<Advisor.Advice> advised = s.advice();
    if (advised.isPresent()) {
      Advisor.Advice advice = advised.get();
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("enough_data", advice.enough());
      a.put(
          "recommended_num_speculative_tokens", advice.enough() ? advice.recommended().k() : null);
      a.put("estimated_gain", advice.enough() ? advice.gain() : null);
      a.put("draft_cost", Advisor.DEFAULT_DRAFT_COST);
      a.put("basis", advice.basis() + " in the evaluation window");
      a.put("warning", advice.warning());
      recipe.put("advice", a);
    }
    return recipe;
  }

  /** An SLO's status: objective, compliance, remaining budget, burn rate per window. */
  public static Map<String, Object> slo(SloStatus st) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("objective", st.slo().objective());
    m.put("acceptance_rate", st.slo().acceptanceRate());
    m.put("slice", Durations.format(st.slo().slice()));
    m.put("period", Durations.format(st.slo().period()));
    m.put("compliance", st.compliance());
    m.put("budget_remaining", st.budgetRemaining());
    Map<String, Object> burn = new LinkedHashMap<>();
    new TreeMap<>(st.burnRates()).forEach((w, v) -> burn.put(Durations.format(w), v));
    m.put("burn_rates", burn);
    if (st.burning() != null) {
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("long_window", Durations.format(st.burning().longWindow()));
      b.put("short_window", Durations.format(st.burning().shortWindow()));
      b.put("factor", st.burning().factor(st.slo().period()));
      b.put("severity", st.burning().severity());
      m.put("burning", b);
    } else {
      m.put("burning", null);
    }
    return m;
  }

  /**
   * The notice for a window that is not yet full, the same words in {@code check}, the API and the
   * web UI: "window not full: 2m10s of data so far; rates read low until it fills".
   */
  public static String windowNotFull(long coveredSeconds) {
    return "window not full: "
        + Durations.format(java.time.Duration.ofSeconds(coveredSeconds))
        + " of data so far; rates read low until it fills";
  }

  /** Conditional acceptance per position, rejected draft tokens/s, output share from drafts. */
  public static Map<String, Object> efficiency(SignalValues s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("conditional_acceptance", s.conditionalAcceptance());
    m.put("rejected_draft_tokens_per_second", s.rejectedDraftTokensPerSecond());
    m.put("output_share_from_drafts", s.outputShareFromDrafts());
    return m;
  }
}
