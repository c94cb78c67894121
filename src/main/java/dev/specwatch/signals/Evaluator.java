package dev.specwatch.signals;

import dev.specwatch.model.Engine;
import dev.specwatch.model.LabelMatcher;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Sample;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates every recipe's signals with a number of queries that does not grow with the number of
 * recipes: recipes are grouped by engine and by the label names they match on, and each group sends
 * one {@code sum by (<label names>)} query per signal. Results are mapped back to recipes by their
 * label values. Thread-safe if the {@link PrometheusApi} is.
 */
public final class Evaluator {
  private static final Logger logger = LoggerFactory.getLogger(Evaluator.class);

  /** Above this many distinct values a label gets no matcher; results are filtered locally. */
  static final int MAX_ALTERNATIVES = 256;

  private final PrometheusApi api;
  private final Clock clock;
  private final SpeedupReadings speedups;

  public Evaluator(PrometheusApi api, Clock clock) {
    this(api, clock, null);
  }

  /**
   * @param speedups measures the speed-up of recipes with {@code thresholds.speedup}; null: none is
   *     measured (their speed-up reads no value, so the rule gives no verdict)
   */
  public Evaluator(PrometheusApi api, Clock clock, SpeedupReadings speedups) {
    this.api = api;
    this.clock = clock;
    this.speedups = speedups;
  }

  /** Whether the datasource was abandoned (the daemon is stopping): act on nothing it read. */
  public boolean abandoned() {
    return api.abandoned();
  }

  /** Answers one PromQL query for an evaluation (instant query, or a slice of a range query). */
  public interface Fetcher {
    List<Sample> fetch(String promql) throws PrometheusException;
  }

  /** Evaluates at {@code at}, or now. Datasource errors become {@link RecipeState#ERROR}. */
  public Evaluation evaluate(List<Policy> policies, Duration window, Optional<Instant> at) {
    return evaluate(policies, window, null, at);
  }

  /**
   * Evaluates at {@code at}, or now; with a {@code step} (the evaluation interval) the recipes that
   * decide on per-step increments also get the counters' increases over that step.
   */
  public Evaluation evaluate(
      List<Policy> policies, Duration window, Duration step, Optional<Instant> at) {
    Instant time = at.orElseGet(clock::instant);
    return evaluate(
        policies, window, step, time, promql -> api.query(promql, Optional.of(time)).samples());
  }

  /**
   * Evaluates at {@code time} with the answers of {@code fetcher}: the same queries and the same
   * mapping to recipes as a live evaluation (replay uses range queries sliced per step).
   */
  public Evaluation evaluate(
      List<Policy> policies, Duration window, Instant time, Fetcher fetcher) {
    return evaluate(policies, window, null, time, fetcher);
  }

  /** As above, with the step increments of recipes that need them ({@code step} non-null). */
  public Evaluation evaluate(
      List<Policy> policies, Duration window, Duration step, Instant time, Fetcher fetcher) {
    Map<GroupKey, List<Policy>> groups = new LinkedHashMap<>();
    for (Policy p : policies) {
      groups.computeIfAbsent(GroupKey.of(p), k -> new ArrayList<>()).add(p);
    }
    Map<String, RecipeSnapshot> byRecipe = new HashMap<>();
    int queries = 0;
    Map<String, Double> speedup = speedups == null ? Map.of() : speedups.read(policies, time);
    for (Map.Entry<GroupKey, List<Policy>> group : groups.entrySet()) {
      GroupResult result =
          evaluateGroup(group.getKey(), group.getValue(), window, step, fetcher, speedup);
      queries += result.queries();
      result.snapshots().forEach(s -> byRecipe.put(s.recipe(), s));
    }
    List<RecipeSnapshot> ordered = new ArrayList<>(policies.size());
    for (Policy p : policies) {
      RecipeSnapshot snapshot = byRecipe.get(p.recipe());
      if (p.slo().isPresent() && snapshot.error().isEmpty()) {
        try {
          SloQueries.Count count = SloQueries.slo(p, fetcher);
          queries += count.queries();
          snapshot = snapshot.withSlo(count.status());
        } catch (PrometheusException e) {
          queries += 1;
          logger.debug("SLO of {} not evaluated: {}", p.recipe(), e.getMessage());
        }
      }
      ordered.add(snapshot);
    }
    return new Evaluation(time, window, ordered, queries);
  }

  /**
   * Recipes queried together: one engine, one set of label names, and for an engine whose signals
   * need k (SGLang: acceptance is (L - 1) / k) one k; 0 where k does not enter the queries.
   * Deployments without speculation ({@code plain}) are a group of their own: they are asked only
   * for their throughput and running requests.
   */
  private record GroupKey(Engine engine, List<String> labelNames, int k, boolean plain) {
    static GroupKey of(Policy p) {
      boolean needsK = EngineProfile.of(p.engine()).needsK();
      return new GroupKey(
          p.engine(),
          p.matchLabelNames(),
          needsK ? p.numSpeculativeTokens() : 0,
          p.numSpeculativeTokens() == 0);
    }
  }

  private record GroupResult(List<RecipeSnapshot> snapshots, int queries) {}

  /** Signals queried only for recipes whose rules need them. */
  private static final Set<Signal> ON_DEMAND =
      EnumSet.of(
          Signal.RUNNING_REQUESTS,
          Signal.ACCEPTANCE_SPREAD,
          Signal.STEP_DRAFT_TOKENS,
          Signal.STEP_ACCEPTED_TOKENS,
          Signal.STEP_DRAFTS,
          Signal.STEP_ACCEPTED_PER_POSITION);

  private GroupResult evaluateGroup(
      GroupKey key,
      List<Policy> recipes,
      Duration window,
      Duration step,
      Fetcher fetcher,
      Map<String, Double> speedup) {
    EngineProfile profile = EngineProfile.of(key.engine());
    QueryScope scope =
        new QueryScope(key.labelNames(), selector(key.labelNames(), recipes), window);
    if (key.k() > 0) {
      scope = scope.withK(key.k());
    }
    Map<List<String>, Policy> byValues = new HashMap<>();
    for (Policy p : recipes) {
      byValues.put(List.copyOf(p.match().values()), p);
    }
    Map<QueryKey, Map<Policy, List<Sample>>> results = new HashMap<>();
    int queries = 0;
    for (QueryKey query : key.plain() ? plainPlan(recipes) : plan(profile, recipes, step)) {
      QueryScope s =
          query.signal().step()
              ? scope.over(step)
              : query.baseline() == null ? scope : scope.baseline(query.baseline());
      String promql = profile.query(query.signal(), s);
      queries++;
      try {
        List<Sample> result = fetcher.fetch(promql);
        IdentityHashMap<Policy, List<Sample>> mapped = new IdentityHashMap<>();
        for (Sample sample : result) {
          Policy owner = byValues.get(values(sample, key.labelNames()));
          if (owner != null) {
            // most recipes have one sample a query (or one a position): not ten slots each, held
            // until the snapshots are made
            mapped
                .computeIfAbsent(owner, p -> new ArrayList<>(1))
                .add(sample.without(key.labelNames()));
          }
        }
        results.put(query, mapped);
      } catch (PrometheusException e) {
        // Returned in the snapshots, where the caller reports it once; debug here for tracing.
        logger.debug(
            "evaluating {} recipe(s) of engine {} by {} failed: {}",
            recipes.size(),
            key.engine(),
            key.labelNames(),
            e.getMessage());
        List<RecipeSnapshot> failed = new ArrayList<>();
        for (Policy p : recipes) {
          failed.add(
              new RecipeSnapshot(
                  p.recipe(),
                  p.engine().key(),
                  RecipeState.ERROR,
                  SignalValues.empty(p.numSpeculativeTokens()),
                  List.of(),
                  Optional.empty(),
                  Optional.of(e.getMessage())));
        }
        return new GroupResult(failed, queries);
      }
    }
    Optional<Set<Policy>> fullShape = Optional.empty();
    if (profile.fullShapeSeries().isPresent() && !key.plain()) {
      queries++;
      fullShape =
          GroupProbes.fullShape(
              profile.fullShapeSeries().get(), key.labelNames(), scope, byValues, fetcher);
    }
    IdentityHashMap<Policy, ActiveK.Reading> activeK = new IdentityHashMap<>();
    if (profile.activeK().isPresent() && !key.plain()) {
      queries++;
      activeK =
          GroupProbes.activeK(profile.activeK().get(), key.labelNames(), scope, byValues, fetcher);
    }
    queries++;
    IdentityHashMap<Policy, Long> covered =
        GroupProbes.covered(key.engine(), key.labelNames(), scope, window, byValues, fetcher);
    List<RecipeSnapshot> snapshots = new ArrayList<>(recipes.size());
    for (Policy p : recipes) {
      RecipeSnapshot snapshot = Snapshots.snapshot(p, results, step, speedup.get(p.recipe()));
      Long seconds = covered.get(p);
      if (seconds != null
          && snapshot.state() != RecipeState.NO_DATA
          && snapshot.state() != RecipeState.ERROR) {
        snapshot = snapshot.withCovered(seconds);
      }
      if (fullShape.isPresent()
          && snapshot.state() != RecipeState.NO_DATA
          && snapshot.state() != RecipeState.ERROR) {
        snapshot = snapshot.withForm(profile.form(fullShape.get().contains(p)));
      }
      ActiveK.Reading k = activeK.get(p);
      if (k != null && profile.draftLengthMeasured()) {
        k = k.withMeanDraft(meanDraft(snapshot.signals(), window));
      }
      if (k != null && snapshot.form().isPresent() && p.numSpeculativeTokens() > 0) {
        snapshot = snapshot.withForm(snapshot.form().get().withK(k, p.numSpeculativeTokens()));
      }
      Optional<String> verdict = speedups == null ? Optional.empty() : speedups.verdict(p.recipe());
      if (verdict.isPresent() && snapshot.form().isPresent()) {
        snapshot =
            snapshot.withForm(
                snapshot
                    .form()
                    .get()
                    .withSpeedup(verdict.get(), speedups.confounded(p.recipe()).orElse(null)));
      }
      snapshots.add(snapshot);
    }
    return new GroupResult(snapshots, queries);
  }

  /** Draft tokens over drafts in the window (a rate times the window over an increase). */
  private static Double meanDraft(SignalValues v, Duration window) {
    if (v.draftTokensPerSecond() == null
        || v.draftsInWindow() == null
        || !(v.draftsInWindow() > 0)) {
      return null;
    }
    return v.draftTokensPerSecond() * window.toSeconds() / v.draftsInWindow();
  }

  /**
   * The group's queries: every regular signal of the engine over the window; for regression rules
   * the acceptance rate and drafts over each distinct baseline; for throughput rules the running
   * requests now and, with generation tokens/s, over the baseline.
   */
  private static List<QueryKey> plan(EngineProfile profile, List<Policy> recipes, Duration step) {
    Set<QueryKey> plan = new LinkedHashSet<>();
    for (Signal signal : profile.supported()) {
      if (!ON_DEMAND.contains(signal)) {
        plan.add(new QueryKey(signal, null));
      }
    }
    for (Policy p : recipes) {
      if (step != null && p.usesIncrements()) {
        for (Signal signal : Signal.STEP_SIGNALS) {
          if (profile.supported().contains(signal)) {
            plan.add(new QueryKey(signal, null));
          }
        }
      }
      p.thresholds()
          .regression()
          .ifPresent(
              r -> {
                plan.add(new QueryKey(Signal.ACCEPTANCE_RATE, r.baseline()));
                plan.add(new QueryKey(Signal.DRAFTS_IN_WINDOW, r.baseline()));
                if (profile.supported().contains(Signal.ACCEPTANCE_SPREAD)) {
                  plan.add(new QueryKey(Signal.ACCEPTANCE_SPREAD, r.baseline()));
                }
              });
      p.thresholds()
          .throughput()
          .ifPresent(
              t -> {
                plan.add(new QueryKey(Signal.RUNNING_REQUESTS, null));
                plan.add(new QueryKey(Signal.GENERATION_TOKENS_PER_SECOND, t.baseline()));
                plan.add(new QueryKey(Signal.RUNNING_REQUESTS, t.baseline()));
              });
    }
    return List.copyOf(plan);
  }

  /**
   * The queries of deployments without speculation: generation tokens/s and running requests over
   * the window and, for {@code thresholds.throughput}, over its baseline.
   */
  private static List<QueryKey> plainPlan(List<Policy> recipes) {
    Set<QueryKey> plan = new LinkedHashSet<>();
    plan.add(new QueryKey(Signal.GENERATION_TOKENS_PER_SECOND, null));
    plan.add(new QueryKey(Signal.RUNNING_REQUESTS, null));
    for (Policy p : recipes) {
      p.thresholds()
          .throughput()
          .ifPresent(
              t -> {
                plan.add(new QueryKey(Signal.GENERATION_TOKENS_PER_SECOND, t.baseline()));
                plan.add(new QueryKey(Signal.RUNNING_REQUESTS, t.baseline()));
              });
    }
    return List.copyOf(plan);
  }

  /**
   * Matchers that cover every recipe of the group: equality where all share a value, else a regex
   * of the literal values (bounded), else none.
   */
  public static List<LabelMatcher> selector(List<String> labelNames, List<Policy> recipes) {
    List<LabelMatcher> matchers = new ArrayList<>();
    for (String label : labelNames) {
      Set<String> values = new LinkedHashSet<>();
      for (Policy p : recipes) {
        values.add(p.match().get(label));
      }
      if (values.size() == 1) {
        matchers.add(LabelMatcher.equal(label, values.iterator().next()));
      } else if (values.size() <= MAX_ALTERNATIVES) {
        StringBuilder regex = new StringBuilder();
        for (String v : values.stream().sorted().toList()) {
          if (regex.length() > 0) {
            regex.append('|');
          }
          regex.append(escapeRegex(v));
        }
        matchers.add(new LabelMatcher(label, LabelMatcher.Op.REGEX, regex.toString()));
      }
    }
    return matchers;
  }

  /** Escapes RE2 metacharacters so a label value matches only itself. */
  static String escapeRegex(String literal) {
    StringBuilder out = new StringBuilder(literal.length() + 8);
    for (int i = 0; i < literal.length(); i++) {
      char c = literal.charAt(i);
      if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
        out.append('\\');
      }
      out.append(c);
    }
    return out.toString();
  }

  static List<String> values(Sample sample, List<String> labelNames) {
    String[] values = new String[labelNames.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = sample.labels().get(labelNames.get(i));
    }
    return Arrays.asList(values);
  }
}
