package dev.specwatch.alerting;

import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.Baseline;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.RecipeState;
import dev.specwatch.signals.SignalValues;
import dev.specwatch.signals.SloStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns evaluations into alert transitions, with the semantics of Prometheus' alert generator
 * (pending for {@code for}, then firing; {@code keep_firing_for} before resolving) plus hysteresis,
 * explicit no-verdict states and a datasource alert. A pure function of (state, policies,
 * evaluation, silences): the caller persists the returned state. docs/ALERTING.md.
 */
public final class AlertEngine {
  public static final String DATASOURCE_ALERT = "specwatch/datasource_unavailable";

  private final AlertSettings settings;

  public AlertEngine(AlertSettings settings) {
    this.settings = settings;
  }

  /** The new state and the transitions this evaluation produced. */
  public record Step(AlertState state, List<Transition> transitions) {}

  /** What one rule of one recipe says in this evaluation. */
  private record Verdict(Kind kind, Double value, double threshold, String reason) {
    enum Kind {
      BREACHED,
      /** Not breached and past the clear level: a firing alert may resolve. */
      CLEAR,
      /** Not breached but not past the clear level (hysteresis): a firing alert stays. */
      HOLD,
      /** No verdict (idle, low traffic, no data, error, missing value): freeze. */
      UNKNOWN
    }
  }

  private record Rule(String id, String rule, Integer position, String severity) {}

  public Step step(
      AlertState state, List<Policy> policies, Evaluation evaluation, List<Silence> silences) {
    Instant now = evaluation.evaluatedAt();
    Map<String, ActiveAlert> alerts = new HashMap<>(state.alerts());
    List<Transition> out = new ArrayList<>();
    long[] sequence = {state.nextSequence()};
    Map<String, RecipeSnapshot> snapshots = new HashMap<>();
    evaluation.recipes().forEach(s -> snapshots.put(s.recipe(), s));
    Set<String> liveIds = new HashSet<>();

    for (Policy policy : policies) {
      RecipeSnapshot snapshot = snapshots.get(policy.recipe());
      if (snapshot == null) {
        continue;
      }
      for (Map.Entry<Rule, Verdict> e : verdicts(policy, snapshot).entrySet()) {
        Rule rule = e.getKey();
        liveIds.add(rule.id());
        Verdict verdict = e.getValue();
        ActiveAlert before = alerts.get(rule.id());
        Silenced silenced = new Silenced(policy, rule.rule(), now, silences);
        int first = out.size();
        ActiveAlert after =
            advance(policy, rule, before, verdict, evaluation, out, sequence, silenced, now);
        for (int i = first; i < out.size(); i++) {
          out.set(
              i, out.get(i).withContext(policy.match(), snapshot.signals().positionAcceptance()));
        }
        if (after == null) {
          alerts.remove(rule.id());
        } else {
          alerts.put(rule.id(), after);
        }
      }
    }

    // Alerts whose rule or recipe no longer exists (policy changed): resolve, then forget.
    for (ActiveAlert a : List.copyOf(alerts.values())) {
      if (a.id().equals(DATASOURCE_ALERT) || liveIds.contains(a.id())) {
        continue;
      }
      if (a.phase() == AlertPhase.FIRING) {
        out.add(
            transition(
                sequence,
                a,
                Transition.Kind.RESOLVED,
                "rule removed from the policy",
                null,
                evaluation.window(),
                a.firingSince(),
                now,
                !a.notified(),
                Map.of()));
      }
      alerts.remove(a.id());
    }

    Instant failingSince = datasource(state, evaluation, alerts, out, sequence, now);
    return new Step(
        new AlertState(AlertState.VERSION, alerts, failingSince, sequence[0], state.queued()), out);
  }

  /** Silence state of one rule at one moment. */
  private static final class Silenced {
    private final boolean now;

    Silenced(Policy policy, String rule, Instant at, List<Silence> silences) {
      boolean maintenance =
          policy.maintenance().stream()
              .anyMatch(m -> !at.isBefore(m.start()) && at.isBefore(m.end()));
      this.now =
          maintenance || silences.stream().anyMatch(s -> s.matches(policy.recipe(), rule, at));
    }
  }

  private ActiveAlert advance(
      Policy policy,
      Rule rule,
      ActiveAlert a,
      Verdict v,
      Evaluation evaluation,
      List<Transition> out,
      long[] sequence,
      Silenced silenced,
      Instant now) {
    Duration window = evaluation.window();
    Map<String, String> labels = labels(policy);
    switch (v.kind()) {
      case UNKNOWN -> {
        if (a == null) {
          return null;
        }
        Instant frozen = a.frozenSince() == null ? now : a.frozenSince();
        if (a.phase() == AlertPhase.FIRING
            && !v.reason().equals(RecipeState.ERROR.key())
            && !Duration.between(frozen, now).minus(settings.idleResolveAfter()).isNegative()) {
          out.add(
              transition(
                  sequence,
                  a,
                  Transition.Kind.RESOLVED,
                  v.reason() + " for " + human(Duration.between(frozen, now)),
                  null,
                  window,
                  a.firingSince(),
                  now,
                  !a.notified(),
                  labels));
          return null;
        }
        return a.with(
            a.phase(),
            a.firingSince(),
            a.clearSince(),
            frozen,
            a.value(),
            a.threshold(),
            a.notified());
      }
      case BREACHED -> {
        if (a == null) {
          a =
              new ActiveAlert(
                  rule.id(),
                  policy.recipe(),
                  rule.rule(),
                  rule.position(),
                  AlertPhase.PENDING,
                  now,
                  null,
                  null,
                  null,
                  v.value(),
                  v.threshold(),
                  rule.severity(),
                  false);
        }
        if (a.phase() == AlertPhase.PENDING) {
          // Burn-rate windows already require the condition to last: no extra `for`.
          Duration forDuration =
              rule.rule().equals("slo_burn") ? Duration.ZERO : policy.forDuration();
          if (Duration.between(a.activeSince(), now).compareTo(forDuration) >= 0) {
            out.add(
                transition(
                    sequence,
                    a,
                    Transition.Kind.FIRING,
                    v.reason(),
                    v.value(),
                    window,
                    a.activeSince(),
                    now,
                    silenced.now,
                    labels));
            return a.with(
                AlertPhase.FIRING, now, null, null, v.value(), v.threshold(), !silenced.now);
          }
          return a.with(AlertPhase.PENDING, null, null, null, v.value(), v.threshold(), false);
        }
        return notifyIfUnsilenced(
            a.with(
                AlertPhase.FIRING,
                a.firingSince(),
                null,
                null,
                v.value(),
                v.threshold(),
                a.notified()),
            v,
            window,
            out,
            sequence,
            silenced,
            labels,
            now);
      }
      case HOLD -> {
        if (a == null || a.phase() == AlertPhase.PENDING) {
          return null;
        }
        return notifyIfUnsilenced(
            a.with(
                AlertPhase.FIRING,
                a.firingSince(),
                null,
                null,
                v.value(),
                v.threshold(),
                a.notified()),
            v,
            window,
            out,
            sequence,
            silenced,
            labels,
            now);
      }
      case CLEAR -> {
        if (a == null || a.phase() == AlertPhase.PENDING) {
          return null;
        }
        Instant clear = a.clearSince() == null ? now : a.clearSince();
        if (Duration.between(clear, now).compareTo(policy.keepFiringFor()) >= 0) {
          out.add(
              transition(
                  sequence,
                  a,
                  Transition.Kind.RESOLVED,
                  v.reason(),
                  v.value(),
                  window,
                  a.firingSince(),
                  now,
                  !a.notified(),
                  labels));
          return null;
        }
        return a.with(
            AlertPhase.FIRING,
            a.firingSince(),
            clear,
            null,
            v.value(),
            v.threshold(),
            a.notified());
      }
      default -> throw new IllegalStateException("unreachable");
    }
  }

  /**
   * The policy's labels plus two notification hints that travel with the transition: the runbook
   * and the Slack channel (notifiers that route on labels ignore these two).
   */
  static Map<String, String> labels(Policy policy) {
    Map<String, String> labels = new TreeMap<>(policy.labels());
    policy.runbookUrl().ifPresent(u -> labels.put("runbook_url", u));
    policy.notification().slackChannel().ifPresent(c -> labels.put("slack_channel", c));
    return labels;
  }

  /** A firing alert first notified late because a silence covered its start. */
  private static ActiveAlert notifyIfUnsilenced(
      ActiveAlert a,
      Verdict v,
      Duration window,
      List<Transition> out,
      long[] sequence,
      Silenced silenced,
      Map<String, String> labels,
      Instant now) {
    if (a.notified() || silenced.now) {
      return a;
    }
    out.add(
        transition(
            sequence,
            a,
            Transition.Kind.FIRING,
            v.reason() + " (silence ended)",
            v.value(),
            window,
            a.activeSince(),
            now,
            false,
            labels));
    return a.with(
        a.phase(),
        a.firingSince(),
        a.clearSince(),
        a.frozenSince(),
        a.value(),
        a.threshold(),
        true);
  }

  private Instant datasource(
      AlertState state,
      Evaluation evaluation,
      Map<String, ActiveAlert> alerts,
      List<Transition> out,
      long[] sequence,
      Instant now) {
    ActiveAlert current = alerts.get(DATASOURCE_ALERT);
    if (evaluation.anyDatasourceError()) {
      Instant since = state.datasourceFailingSince() == null ? now : state.datasourceFailingSince();
      if (current == null
          && Duration.between(since, now).compareTo(settings.datasourceFailureFor()) >= 0) {
        String error =
            evaluation.recipes().stream()
                .flatMap(r -> r.error().stream())
                .findFirst()
                .orElse("queries failed");
        ActiveAlert a =
            new ActiveAlert(
                DATASOURCE_ALERT,
                "*",
                "datasource_unavailable",
                null,
                AlertPhase.FIRING,
                since,
                now,
                null,
                null,
                null,
                0,
                "critical",
                true);
        out.add(
            transition(
                sequence,
                a,
                Transition.Kind.FIRING,
                error,
                null,
                evaluation.window(),
                since,
                now,
                false,
                Map.of()));
        alerts.put(DATASOURCE_ALERT, a);
      }
      return since;
    }
    if (current != null) {
      out.add(
          transition(
              sequence,
              current,
              Transition.Kind.RESOLVED,
              "queries succeed again",
              null,
              evaluation.window(),
              current.firingSince(),
              now,
              false,
              Map.of()));
      alerts.remove(DATASOURCE_ALERT);
    }
    return null;
  }

  private static Transition transition(
      long[] sequence,
      ActiveAlert a,
      Transition.Kind kind,
      String reason,
      Double value,
      Duration window,
      Instant since,
      Instant at,
      boolean silenced,
      Map<String, String> labels) {
    return new Transition(
        sequence[0]++,
        a.id(),
        a.recipe(),
        a.rule(),
        a.position(),
        kind,
        reason,
        value,
        a.threshold(),
        window,
        since,
        at,
        a.severity(),
        silenced,
        labels,
        Map.of(),
        List.of());
  }

  // ---- verdicts ----

  private static Map<Rule, Verdict> verdicts(Policy p, RecipeSnapshot s) {
    Map<Rule, Verdict> out = new LinkedHashMap<>();
    Policy.Thresholds t = p.thresholds();
    String defaultSeverity = p.notification().severity();
    boolean verdict = s.state() == RecipeState.OK || s.state() == RecipeState.BREACH;
    String noVerdict = s.state().key();
    SignalValues v = s.signals();
    t.acceptanceRate()
        .ifPresent(
            th ->
                out.put(
                    rule(p, "acceptance_rate", null, th.severity().orElse(defaultSeverity)),
                    threshold("acceptance_rate", v.acceptanceRate(), th, verdict, noVerdict)));
    t.meanAcceptedLength()
        .ifPresent(
            th ->
                out.put(
                    rule(p, "mean_accepted_length", null, th.severity().orElse(defaultSeverity)),
                    threshold(
                        "mean_accepted_length", v.meanAcceptedLength(), th, verdict, noVerdict)));
    t.positionAcceptance()
        .forEach(
            (position, th) ->
                out.put(
                    rule(p, "position_acceptance", position, th.severity().orElse(defaultSeverity)),
                    threshold(
                        "position_acceptance[" + position + "]",
                        position < v.positionAcceptance().size()
                            ? v.positionAcceptance().get(position)
                            : null,
                        th,
                        verdict,
                        noVerdict)));
    t.regression()
        .ifPresent(
            r ->
                out.put(
                    rule(p, "regression", null, r.severity().orElse(defaultSeverity)),
                    verdict ? regression(r, v, s.baseline()) : unknown(noVerdict)));
    p.slo()
        .ifPresent(
            slo -> {
              Verdict sloVerdict =
                  s.slo()
                      .map(AlertEngine::sloBurn)
                      .orElse(
                          unknown(
                              s.state() == RecipeState.ERROR
                                  ? RecipeState.ERROR.key()
                                  : "no SLO data"));
              String severity =
                  s.slo()
                      .map(st -> st.burning() == null ? null : st.burning().severity())
                      .orElse(null);
              out.put(
                  rule(p, "slo_burn", null, severity == null ? defaultSeverity : severity),
                  sloVerdict);
            });
    t.throughput()
        .ifPresent(
            r ->
                out.put(
                    rule(p, "throughput", null, r.severity().orElse(defaultSeverity)),
                    verdict ? throughput(r, v, s.baseline()) : unknown(noVerdict)));
    return out;
  }

  private static Rule rule(Policy p, String rule, Integer position, String severity) {
    String id = p.recipe() + "/" + rule + (position == null ? "" : "[" + position + "]");
    return new Rule(id, rule, position, severity);
  }

  private static Verdict unknown(String reason) {
    return new Verdict(Verdict.Kind.UNKNOWN, null, 0, reason);
  }

  private static Verdict threshold(
      String name, Double value, Threshold th, boolean verdict, String noVerdict) {
    if (!verdict) {
      return unknown(noVerdict);
    }
    if (value == null) {
      return unknown("no value");
    }
    if (th.breachedBy(value)) {
      return new Verdict(
          Verdict.Kind.BREACHED,
          value,
          th.below(),
          name + " " + fmt(value) + " below " + fmt(th.below()));
    }
    if (value > th.clearLevel()) {
      return new Verdict(
          Verdict.Kind.CLEAR,
          value,
          th.below(),
          "recovered: " + name + " " + fmt(value) + " above " + fmt(th.clearLevel()));
    }
    return new Verdict(
        Verdict.Kind.HOLD,
        value,
        th.below(),
        name + " " + fmt(value) + " not yet above " + fmt(th.clearLevel()));
  }

  /**
   * Relative drop of the acceptance rate against the baseline, and a one-sided z-test of the
   * current proportion against the baseline's: z = (p0 - p1) / sqrt(p0 (1 - p0) / n), n = drafts in
   * the window. A drop on thin traffic is not significant and does not fire.
   */
  static Verdict regression(Policy.Regression r, SignalValues v, Optional<Baseline> baseline) {
    Double p1 = v.acceptanceRate();
    Double n = v.draftsInWindow();
    Double p0 = baseline.map(Baseline::acceptanceRate).orElse(null);
    Double nb = baseline.map(Baseline::drafts).orElse(null);
    if (p1 == null || n == null || p0 == null || nb == null) {
      return unknown("no baseline");
    }
    if (nb < r.minBaselineDrafts() || p0 <= 0 || p0 >= 1) {
      return unknown("baseline too thin");
    }
    double drop = (p0 - p1) / p0;
    double z = (p0 - p1) / Math.sqrt(p0 * (1 - p0) / n);
    double threshold = p0 * (1 - r.maxRelativeDrop());
    String detail =
        String.format(
            Locale.ROOT,
            "acceptance %.3f vs baseline %.3f (%s): %+.1f %%, z=%.1f",
            p1,
            p0,
            human(r.baseline()),
            -drop * 100,
            z);
    if (drop > r.maxRelativeDrop() && z >= r.minZ()) {
      return new Verdict(Verdict.Kind.BREACHED, p1, threshold, "regression: " + detail);
    }
    return new Verdict(Verdict.Kind.CLEAR, p1, threshold, "recovered: " + detail);
  }

  /** Multi-window, multi-burn-rate alerting on the SLO's error budget (SRE workbook). */
  static Verdict sloBurn(SloStatus st) {
    Duration period = st.slo().period();
    String budget =
        String.format(
            Locale.ROOT,
            "compliance %s, %s of the %s budget left",
            st.compliance() == null
                ? "–"
                : String.format(Locale.ROOT, "%.2f %%", st.compliance() * 100),
            st.budgetRemaining() == null
                ? "–"
                : String.format(Locale.ROOT, "%.0f %%", st.budgetRemaining() * 100),
            human(period));
    SloStatus.BurnWindow w = st.burning();
    if (w == null) {
      Double hour = st.burnRates().get(Duration.ofHours(1));
      return new Verdict(
          Verdict.Kind.CLEAR,
          hour,
          0,
          "recovered: error budget burn under the" + " alerting rates; " + budget);
    }
    double factor = w.factor(period);
    double longBurn = st.burnRates().get(w.longWindow());
    return new Verdict(
        Verdict.Kind.BREACHED,
        longBurn,
        factor,
        String.format(
            Locale.ROOT,
            "SLO burn: %.1fx over %s and %.1fx over %s (alerting at %.1fx: %.0f %% of the budget in"
                + " %s); %s",
            longBurn,
            human(w.longWindow()),
            st.burnRates().get(w.shortWindow()),
            human(w.shortWindow()),
            factor,
            w.budgetShare() * 100,
            human(w.longWindow()),
            budget));
  }

  /** Generation tokens/s per running request against the baseline's. */
  static Verdict throughput(Policy.Throughput r, SignalValues v, Optional<Baseline> baseline) {
    Double gen = v.generationTokensPerSecond();
    Double running = v.runningRequests();
    Double genB = baseline.map(Baseline::generationTokensPerSecond).orElse(null);
    Double runningB = baseline.map(Baseline::runningRequests).orElse(null);
    if (gen == null
        || running == null
        || genB == null
        || runningB == null
        || running <= 0
        || runningB <= 0
        || genB <= 0) {
      return unknown("no baseline");
    }
    double now = gen / running;
    double before = genB / runningB;
    double drop = (before - now) / before;
    double threshold = before * (1 - r.maxRelativeDrop());
    String detail =
        String.format(
            Locale.ROOT,
            "%.1f tokens/s per running request vs baseline %.1f: %+.1f %%",
            now,
            before,
            -drop * 100);
    if (drop > r.maxRelativeDrop()) {
      return new Verdict(Verdict.Kind.BREACHED, now, threshold, "throughput " + detail);
    }
    return new Verdict(Verdict.Kind.CLEAR, now, threshold, "recovered: throughput " + detail);
  }

  private static String fmt(double value) {
    return String.format(Locale.ROOT, "%.3f", value);
  }

  static String human(Duration d) {
    return Durations.format(Duration.ofSeconds(d.toSeconds()));
  }
}
