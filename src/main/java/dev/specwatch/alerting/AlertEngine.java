package dev.specwatch.alerting;

import dev.specwatch.detect.DropTest;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.signals.Evaluation;
import dev.specwatch.signals.RecipeSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns evaluations into alert transitions, with the semantics of Prometheus' alert generator
 * (pending for {@code for}, then firing; {@code keep_firing_for} before resolving) plus hysteresis,
 * explicit no-verdict states and a datasource alert. The {@link Rule}s judge; the engine only moves
 * alerts between phases. A pure function of (state, policies, evaluation, silences): the caller
 * persists the returned state. docs/ALERTING.md.
 */
public final class AlertEngine {
  /** specwatch's own alert for a datasource that fails (or answers garbage). */
  public static final AlertKey DATASOURCE = AlertKey.specwatch("datasource_unavailable");

  /** {@link #DATASOURCE}'s id, the key of its entry in {@link AlertState#alerts()}. */
  public static final String DATASOURCE_ALERT = DATASOURCE.id();

  private final SpecwatchConfig.Alerting settings;
  private final boolean selfAlerts;

  public AlertEngine(SpecwatchConfig.Alerting settings) {
    this(settings, true);
  }

  /**
   * @param selfAlerts whether this engine raises specwatch's own alerts (one evaluation shard of a
   *     cluster does, so they are raised once)
   */
  public AlertEngine(SpecwatchConfig.Alerting settings, boolean selfAlerts) {
    this.settings = settings;
    this.selfAlerts = selfAlerts;
  }

  /** The new state and the transitions this evaluation produced. */
  public record Step(AlertState state, List<Transition> transitions) {}

  public Step step(
      AlertState state, List<Policy> policies, Evaluation evaluation, List<Silence> silences) {
    return step(state, policies, evaluation, silences, Map.of());
  }

  /**
   * @param problems specwatch's own problems to alert on, by rule name (e.g. {@code
   *     state_recovered}) with the reason: each fires {@code specwatch/<rule>} while present and
   *     resolves when it is gone
   */
  public Step step(
      AlertState state,
      List<Policy> policies,
      Evaluation evaluation,
      List<Silence> silences,
      Map<String, String> problems) {
    Instant now = evaluation.evaluatedAt();
    Map<String, ActiveAlert> alerts = new HashMap<>(state.alerts());
    Emitter emit = new Emitter(state.nextSequence(), evaluation.window(), now);
    Map<String, RecipeSnapshot> snapshots = new HashMap<>();
    evaluation.recipes().forEach(s -> snapshots.put(s.recipe(), s));
    Set<String> liveIds = new HashSet<>();
    Map<String, DropTest.State> detectors = new HashMap<>();

    for (Policy policy : policies) {
      RecipeSnapshot snapshot = snapshots.get(policy.recipe());
      if (snapshot == null) {
        continue;
      }
      for (Rule rule : Rule.of(policy)) {
        AlertKey key = rule.key(policy.recipe());
        String id = key.id();
        liveIds.add(id);
        Rule.Judged judged =
            rule.judge(
                snapshot,
                new Rule.Context(
                    now, state.models().get(policy.recipe()), state.detectors().get(id)));
        Verdict verdict =
            judged
                .verdict()
                .withK(snapshot, policy.numSpeculativeTokens())
                .withSpeedup(snapshot, rule.ruleName());
        if (judged.detector() != null) {
          detectors.put(id, judged.detector());
        }
        boolean silenced = silenced(policy, rule.name(), now, silences);
        Subject subject = new Subject(policy, rule, key, snapshot, labels(policy), silenced);
        int first = emit.count();
        ActiveAlert after = advance(subject, alerts.get(id), verdict, emit);
        emit.addContext(
            first, policy.match(), snapshot.signals().positionAcceptance(), signalValues(snapshot));
        if (after == null) {
          alerts.remove(id);
        } else {
          alerts.put(id, after);
        }
      }
    }

    // Alerts whose rule or recipe no longer exists (policy changed): resolve, then forget.
    for (ActiveAlert a : List.copyOf(alerts.values())) {
      if (a.key().specwatch() || liveIds.contains(a.id())) {
        continue;
      }
      if (a.phase() == AlertPhase.FIRING) {
        emit.resolved(a, "rule removed from the policy", null, Map.of());
      }
      alerts.remove(a.id());
    }

    Instant failingSince = selfAlerts ? datasource(state, evaluation, alerts, emit) : null;
    self(selfAlerts ? problems : Map.of(), alerts, emit);
    return new Step(
        new AlertState(
            AlertState.VERSION,
            alerts,
            failingSince,
            emit.next(),
            state.queued(),
            state.models(),
            detectors),
        emit.transitions());
  }

  /** One rule of one recipe in this evaluation, with what its notifications carry. */
  private record Subject(
      Policy policy,
      Rule rule,
      AlertKey key,
      RecipeSnapshot snapshot,
      Map<String, String> labels,
      boolean silenced) {}

  private static boolean silenced(Policy policy, String rule, Instant at, List<Silence> silences) {
    return policy.maintenance().stream().anyMatch(m -> m.covers(at))
        || silences.stream().anyMatch(s -> s.matches(policy.recipe(), rule, at));
  }

  /** The alert after this verdict (null: no alert), emitting the transitions it makes. */
  private ActiveAlert advance(Subject s, ActiveAlert a, Verdict v, Emitter emit) {
    Instant now = emit.now;
    return switch (v.kind()) {
      case UNKNOWN -> {
        if (a == null) {
          yield null;
        }
        Instant frozen = a.frozenSince() == null ? now : a.frozenSince();
        Duration without = Duration.between(frozen, now);
        if (a.phase() == AlertPhase.FIRING
            && !v.datasourceError()
            && without.compareTo(settings.idleResolveAfter()) >= 0) {
          emit.resolved(a, v.reason() + " for " + Verdict.human(without), null, s.labels());
          yield null;
        }
        yield a.frozen(frozen);
      }
      case BREACHED -> {
        if (a == null) {
          a = ActiveAlert.pending(s.key(), s.rule().severity(s.snapshot()), v, now);
        }
        if (a.phase() == AlertPhase.PENDING) {
          Duration pendingFor = Duration.between(a.activeSince(), now);
          if (pendingFor.compareTo(s.rule().forDuration(s.policy())) >= 0) {
            emit.firing(a, v.reason(), v.value(), s.silenced(), s.labels());
            yield a.fired(now, v, !s.silenced());
          }
          yield a.stillPending(v);
        }
        yield notifyIfUnsilenced(a.stillFiring(v), v, s, emit);
      }
      case HOLD -> {
        if (a == null || a.phase() == AlertPhase.PENDING) {
          yield null;
        }
        yield notifyIfUnsilenced(a.stillFiring(v), v, s, emit);
      }
      case CLEAR -> {
        if (a == null || a.phase() == AlertPhase.PENDING) {
          yield null;
        }
        Instant clear = a.clearSince() == null ? now : a.clearSince();
        if (Duration.between(clear, now).compareTo(s.policy().keepFiringFor()) >= 0) {
          emit.resolved(a, v.reason(), v.value(), s.labels());
          yield null;
        }
        yield a.clearing(clear, v);
      }
    };
  }

  /**
   * The policy's labels plus two notification hints that travel with the transition: the runbook
   * and the Slack channel (notifiers that route on labels ignore these two).
   */
  static Map<String, String> labels(Policy policy) {
    Map<String, String> labels = new TreeMap<>(policy.labels());
    policy.runbookUrl().ifPresent(u -> labels.put(Transition.RUNBOOK_URL, u));
    policy.notification().slackChannel().ifPresent(c -> labels.put(Transition.SLACK_CHANNEL, c));
    return labels;
  }

  /** A firing alert first notified late because a silence covered its start. */
  private static ActiveAlert notifyIfUnsilenced(ActiveAlert a, Verdict v, Subject s, Emitter emit) {
    if (a.notified() || s.silenced()) {
      return a;
    }
    emit.firing(a, v.reason() + " (silence ended)", v.value(), false, s.labels());
    return a.notifiedLate();
  }

  /** Fires one datasource alert after queries failed for a while; resolves it when they succeed. */
  private Instant datasource(
      AlertState state, Evaluation evaluation, Map<String, ActiveAlert> alerts, Emitter emit) {
    Instant now = emit.now;
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
        ActiveAlert a = ActiveAlert.firingAtOnce(DATASOURCE, Severity.CRITICAL, since, now);
        emit.firing(a, error, null, false, Map.of());
        alerts.put(DATASOURCE_ALERT, a);
      }
      return since;
    }
    if (current != null) {
      emit.resolved(current, "queries succeed again", null, Map.of());
      alerts.remove(DATASOURCE_ALERT);
    }
    return null;
  }

  /** What a notification shows of the recipe's signals (those with a value). */
  private static Map<String, Double> signalValues(RecipeSnapshot s) {
    Map<String, Double> m = new java.util.TreeMap<>();
    if (s.signals().acceptanceRate() != null) {
      m.put("acceptance_rate", s.signals().acceptanceRate());
    }
    if (s.signals().meanAcceptedLength() != null) {
      m.put("mean_accepted_length", s.signals().meanAcceptedLength());
    }
    if (s.signals().draftTokensPerSecond() != null) {
      m.put("draft_tokens_per_second", s.signals().draftTokensPerSecond());
    }
    return m;
  }

  /** Fires a self-alert for each problem; resolves those whose problem is gone. */
  private static void self(
      Map<String, String> problems, Map<String, ActiveAlert> alerts, Emitter emit) {
    for (Map.Entry<String, String> p : new java.util.TreeMap<>(problems).entrySet()) {
      AlertKey key = AlertKey.specwatch(p.getKey());
      String id = key.id();
      if (!alerts.containsKey(id)) {
        ActiveAlert a = ActiveAlert.firingAtOnce(key, Severity.CRITICAL, emit.now, emit.now);
        emit.firing(a, p.getValue(), null, false, Map.of());
        alerts.put(id, a);
      }
    }
    for (ActiveAlert a : List.copyOf(alerts.values())) {
      if (a.key().specwatch() && !a.key().equals(DATASOURCE) && !problems.containsKey(a.rule())) {
        emit.resolved(a, "no longer a problem", null, Map.of());
        alerts.remove(a.id());
      }
    }
  }

  /** Numbers and collects the transitions of one step. */
  private static final class Emitter {
    private final List<Transition> out = new ArrayList<>();
    private final Duration window;
    private final Instant now;
    private long next;

    Emitter(long next, Duration window, Instant now) {
      this.next = next;
      this.window = window;
      this.now = now;
    }

    /** Fires {@code a}; {@code since} is when its condition started. */
    void firing(
        ActiveAlert a, String reason, Double value, boolean silenced, Map<String, String> labels) {
      add(a, Transition.Kind.FIRING, reason, value, a.activeSince(), silenced, labels);
    }

    /** Resolves {@code a}; silenced when its firing was never notified. */
    void resolved(ActiveAlert a, String reason, Double value, Map<String, String> labels) {
      add(a, Transition.Kind.RESOLVED, reason, value, a.firingSince(), !a.notified(), labels);
    }

    private void add(
        ActiveAlert a,
        Transition.Kind kind,
        String reason,
        Double value,
        Instant since,
        boolean silenced,
        Map<String, String> labels) {
      out.add(
          Transition.builder(a.key(), kind, now)
              .sequence(next++)
              .reason(reason)
              .value(value)
              .threshold(a.threshold())
              .window(window)
              .since(since)
              .severity(a.severity())
              .silenced(silenced)
              .labels(labels)
              .build());
    }

    int count() {
      return out.size();
    }

    /** Adds the recipe's match labels and positions to the transitions from {@code first} on. */
    void addContext(
        int first, Map<String, String> match, List<Double> positions, Map<String, Double> values) {
      for (int i = first; i < out.size(); i++) {
        out.set(i, out.get(i).withContext(match, positions, values));
      }
    }

    long next() {
      return next;
    }

    List<Transition> transitions() {
      return out;
    }
  }
}
