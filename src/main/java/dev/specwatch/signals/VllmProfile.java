package dev.specwatch.signals;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * vLLM V1: four monotonic counters labelled {@code model_name} and {@code engine} (the
 * data-parallel rank), plus {@code position} on the per-position one. Counters are summed across
 * engines and instances before dividing; ratios are never averaged.
 *
 * <p>vLLM releases before {@code num_drafts} and the per-position counter (vllm PR #16665) export
 * only the draft-token and accepted-token counters: there the drafts are draft tokens / k and the
 * mean accepted length 1 + k × acceptance, with the policy's k (docs/ENGINES.md); the fallback is
 * dropped ({@code unless}) wherever {@code num_drafts} has a series, so the two never mix.
 */
public final class VllmProfile implements EngineProfile {
  public static final String DRAFTS = "vllm:spec_decode_num_drafts_total";
  public static final String DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total";
  public static final String ACCEPTED_TOKENS = "vllm:spec_decode_num_accepted_tokens_total";
  public static final String ACCEPTED_PER_POSITION =
      "vllm:spec_decode_num_accepted_tokens_per_pos_total";
  public static final String GENERATION_TOKENS = "vllm:generation_tokens_total";
  public static final String PROMPT_TOKENS = "vllm:prompt_tokens_total";
  public static final String RUNNING_REQUESTS = "vllm:num_requests_running";

  /**
   * The names of vLLM's counter schema, which other engines copy under their own names (llama.cpp
   * since PR #26389): the queries below are written against these.
   *
   * @param positionLabel the per-position counter's position label
   */
  record Names(
      String drafts,
      String draftTokens,
      String acceptedTokens,
      String acceptedPerPosition,
      String positionLabel,
      String generationTokens,
      String runningRequests) {}

  static final Names VLLM_NAMES =
      new Names(
          DRAFTS,
          DRAFT_TOKENS,
          ACCEPTED_TOKENS,
          ACCEPTED_PER_POSITION,
          "position",
          GENERATION_TOKENS,
          RUNNING_REQUESTS);

  /**
   * vLLM behind Ray Serve LLM ({@code log_engine_metrics}): {@code RayPrometheusStatLogger}
   * (vllm-project/vllm {@code vllm/v1/metrics/ray_wrappers.py} @02579a5f) registers each of vLLM's
   * metrics with {@code ray.util.metrics} under its name with every character outside {@code
   * [a-zA-Z0-9_]} replaced by {@code _}, and Ray exports it prefixed {@code ray_}, counters with
   * {@code _total} (ray-project/ray {@code
   * python/ray/dashboard/modules/metrics/dashboards/vllm_engine_panels.py} @35bbe820 queries {@code
   * ray_vllm_generation_tokens_total} and {@code ray_vllm_num_requests_running} by {@code
   * model_name} and {@code WorkerId}). vLLM's labels stay; {@code ReplicaId} and Ray's worker
   * labels are added, which the queries sum away.
   */
  public static final String RAY_PREFIX = "ray_vllm_";

  /** {@link #GENERATION_TOKENS} under Ray Serve LLM (a constant: the registry's served map). */
  public static final String RAY_GENERATION_TOKENS = "ray_vllm_generation_tokens_total";

  static final Names RAY_NAMES =
      new Names(
          ray(DRAFTS),
          ray(DRAFT_TOKENS),
          ray(ACCEPTED_TOKENS),
          ray(ACCEPTED_PER_POSITION),
          "position",
          RAY_GENERATION_TOKENS,
          ray(RUNNING_REQUESTS));

  /** Declared after {@link #VLLM_NAMES}, which its constructor reads. */
  public static final VllmProfile INSTANCE = new VllmProfile(VLLM_NAMES, "vllm", "vllm:");

  /** vLLM's metrics as Ray Serve LLM re-exports them: the {@code ray_vllm} engine. */
  public static final VllmProfile RAY_SERVE = new VllmProfile(RAY_NAMES, "ray_vllm", RAY_PREFIX);

  private final Names n;
  private final String name;
  private final String histogramPrefix;

  /** vLLM's queries over another engine's names for the same schema. */
  VllmProfile(Names names) {
    this(names, "vllm", "vllm:");
  }

  private VllmProfile(Names names, String name, String histogramPrefix) {
    this.n = names;
    this.name = name;
    this.histogramPrefix = histogramPrefix;
  }

  /** {@code vllm:x_total} as Ray Serve LLM exports it: {@code ray_vllm_x_total}. */
  static String ray(String vllmName) {
    return RAY_PREFIX + vllmName.substring("vllm:".length());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Set<Signal> supported() {
    return EnumSet.complementOf(EnumSet.of(Signal.DRAFT_OVERHEAD));
  }

  @Override
  public Optional<String> fullShapeSeries() {
    return Optional.of(n.drafts());
  }

  @Override
  public Optional<ActiveK> activeK() {
    // vLLM registers one per-position series per position of num_speculative_tokens at start-up
    // (SpecDecodingProm, vllm/v1/spec_decode/metrics.py @016a8587); Ray's wrapper writes a series
    // only at its first increment, so there the count is a lower bound.
    return Optional.of(
        ActiveK.positions(n.acceptedPerPosition(), n.positionLabel(), n.equals(VLLM_NAMES)));
  }

  @Override
  public SignalForm form(boolean fullShape) {
    if (fullShape) {
      return EngineProfile.super.form(true);
    }
    return new SignalForm(
        false,
        "not exported by this vLLM",
        List.of(
            "this vLLM exports no num_drafts (before vllm PR #16665): mean accepted length is 1 + k"
                + " x acceptance and drafts are draft tokens / k, with k from the policy's"
                + " num_speculative_tokens"));
  }

  @Override
  public boolean needsK() {
    return true;
  }

  @Override
  public Optional<String> counterOf(Signal rate) {
    return switch (rate) {
      case DRAFT_TOKENS_PER_SECOND -> Optional.of(n.draftTokens());
      case ACCEPTED_TOKENS_PER_SECOND -> Optional.of(n.acceptedTokens());
      case GENERATION_TOKENS_PER_SECOND -> Optional.of(n.generationTokens());
      default -> Optional.empty();
    };
  }

  @Override
  public Optional<String> coverageSeries() {
    return Optional.of(n.drafts());
  }

  @Override
  public Optional<String> finishedRequestHistograms() {
    return Optional.of(histogramPrefix);
  }

  @Override
  public boolean draftLengthMeasured() {
    return true;
  }

  @Override
  public List<RecordingRules.Group> recordingRules() {
    return this == INSTANCE ? VllmRules.vllm() : VllmRules.rayServe();
  }

  @Override
  public Set<String> discoverySeries() {
    return Set.of(
        n.generationTokens(),
        n.runningRequests(),
        n.drafts(),
        n.draftTokens(),
        n.acceptedTokens(),
        n.acceptedPerPosition());
  }

  @Override
  public Set<String> speculativeSeries() {
    return Set.of(n.draftTokens());
  }

  @Override
  public Map<String, String> discoveryFigures() {
    return Map.of("k", Discovered.positionCount(n.acceptedPerPosition(), n.positionLabel()));
  }

  @Override
  public Discovered discovered(Discovered.Series s) {
    boolean positions = s.has(n.acceptedPerPosition());
    Optional<Integer> k = Discovered.k(s);
    List<String> missing = new ArrayList<>();
    if (s.has(n.draftTokens()) && !positions) {
      missing.add("position_acceptance: not exported by this vLLM");
    }
    return new Discovered(
        s.has(n.drafts()) ? "per-position" : "token-counters-only (before vllm PR #16665)",
        k,
        k.isPresent()
            ? "positions exported (" + n.acceptedPerPosition() + ")"
            : "not exported by this vLLM: set num_speculative_tokens from its --speculative-config",
        s.has(n.draftTokens()),
        positions,
        s.has(n.runningRequests()),
        missing);
  }

  @Override
  public String query(Signal signal, QueryScope scope) {
    return switch (signal) {
      case ACCEPTANCE_RATE ->
          ratio(sumRate(n.acceptedTokens(), scope), sumRate(n.draftTokens(), scope));
      case MEAN_ACCEPTED_LENGTH ->
          withoutDrafts(
              scope,
              "1 + "
                  + ratio(sumRate(n.acceptedTokens(), scope), sumRate(n.drafts(), scope)).strip(),
              k ->
                  "1 + "
                      + k
                      + " * "
                      + ratio(sumRate(n.acceptedTokens(), scope), sumRate(n.draftTokens(), scope)));
      case POSITION_ACCEPTANCE -> positionAcceptance(scope);
      case DRAFT_TOKENS_PER_SECOND -> sumRate(n.draftTokens(), scope);
      case ACCEPTED_TOKENS_PER_SECOND -> sumRate(n.acceptedTokens(), scope);
      case GENERATION_TOKENS_PER_SECOND -> sumRate(n.generationTokens(), scope);
      case DRAFTS_IN_WINDOW ->
          withoutDrafts(
              scope,
              sum(scope.groupBy(), "increase", n.drafts(), scope),
              k -> sum(scope.groupBy(), "increase", n.draftTokens(), scope) + " / " + k);
      case RUNNING_REQUESTS -> sum(scope.groupBy(), "avg_over_time", n.runningRequests(), scope);
      case ACCEPTANCE_SPREAD -> spread(scope);
      case DRAFT_OVERHEAD ->
          throw new IllegalArgumentException("vllm does not export " + signal.key());
      case STEP_DRAFT_TOKENS -> sum(scope.groupBy(), "increase", n.draftTokens(), scope);
      case STEP_ACCEPTED_TOKENS -> sum(scope.groupBy(), "increase", n.acceptedTokens(), scope);
      case STEP_DRAFTS ->
          withoutDrafts(
              scope,
              sum(scope.groupBy(), "increase", n.drafts(), scope),
              k -> sum(scope.groupBy(), "increase", n.draftTokens(), scope) + " / " + k);
      case STEP_ACCEPTED_PER_POSITION -> {
        List<String> byPosition = new ArrayList<>(scope.groupBy());
        byPosition.add(n.positionLabel());
        yield sum(byPosition, "increase", n.acceptedPerPosition(), scope);
      }
    };
  }

  /**
   * {@code (exact or (fallback(k) unless on (G) <groups with num_drafts>))}: the older-vLLM form
   * only for groups whose servers do not export {@code num_drafts}, parenthesised so that callers
   * may compare or combine it as one term; {@code exact} alone where k is unknown.
   */
  private String withoutDrafts(
      QueryScope scope, String exact, java.util.function.IntFunction<String> fallback) {
    if (scope.k().isEmpty()) {
      return exact;
    }
    return PromQl.orWhereNotExported(
        scope, exact, fallback.apply(scope.k().getAsInt()), n.drafts());
  }

  /** {@code sum by (G) (rate(metric{S}[W]))}. */
  static String sumRate(String metric, QueryScope scope) {
    return sum(scope.groupBy(), "rate", metric, scope);
  }

  /** {@code sum by (by) (function(metric{S}[W]))}, e.g. function {@code increase}. */
  public static String sum(List<String> by, String function, String metric, QueryScope scope) {
    return PromQl.aggregate("sum", by, function, metric, scope);
  }

  /**
   * {@code numerator / (denominator > 0)}: the filter drops groups with no drafts in the window, so
   * an idle model yields no sample instead of NaN (0/0) or a fake 100 %.
   */
  static String ratio(String numerator, String denominator) {
    return numerator + "\n  /\n(" + denominator + " > 0)";
  }

  /**
   * For a baseline scope (the baseline ending where the window starts): {@code
   * stddev_over_time((acceptance over W)[B:W] offset W)}.
   */
  private String spread(QueryScope baseline) {
    if (baseline.offset().isZero()) {
      throw new IllegalArgumentException("acceptance_spread is defined over a baseline only");
    }
    QueryScope window = baseline.over(baseline.offset());
    return "stddev_over_time(("
        + ratio(sumRate(n.acceptedTokens(), window), sumRate(n.draftTokens(), window))
        + ")["
        + PromQl.range(baseline.window())
        + ":"
        + PromQl.range(baseline.offset())
        + "] offset "
        + PromQl.range(baseline.offset())
        + ")";
  }

  private String positionAcceptance(QueryScope scope) {
    List<String> byPosition = new ArrayList<>(scope.groupBy());
    byPosition.add(n.positionLabel());
    return sum(byPosition, "rate", n.acceptedPerPosition(), scope)
        + "\n  / on ("
        + PromQl.labelList(scope.groupBy())
        + ") group_left ()\n("
        + sumRate(n.drafts(), scope)
        + " > 0)";
  }
}
