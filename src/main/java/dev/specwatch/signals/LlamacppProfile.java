package dev.specwatch.signals;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * llama.cpp's {@code llama-server --metrics}, as {@code server_task_result_metrics::to_metrics} in
 * {@code tools/server/server-task.cpp} writes it since ggml-org/llama.cpp PR #26389
 * (docs/ENGINES.md): vLLM's speculative counters under the {@code llamacpp:} prefix, {@code
 * llamacpp:spec_decode_num_drafts_total}, {@code …_num_draft_tokens_total}, {@code
 * …_num_accepted_tokens_total} and {@code …_num_accepted_tokens_per_pos_total{position}}, so vLLM's
 * queries read them unchanged. Two differences matter:
 *
 * <ul>
 *   <li>No series has a label: one server serves one model, so a recipe selects it by {@code job}
 *       (or {@code instance}), not {@code model_name}.
 *   <li>The three speculative counters are written, at 0, whether or not a draft is configured; the
 *       per-position one only after the first finished speculative request. Speculation is on where
 *       either shows drafting.
 * </ul>
 *
 * <p>The draft length varies from draft to draft ({@code --spec-draft-n-max} is a bound): k is the
 * longest draft the per-position counter has seen, and the accepted length is exact (1 + accepted /
 * drafts) without it.
 */
public final class LlamacppProfile implements EngineProfile {
  public static final LlamacppProfile INSTANCE = new LlamacppProfile();

  public static final String DRAFTS = "llamacpp:spec_decode_num_drafts_total";
  public static final String DRAFT_TOKENS = "llamacpp:spec_decode_num_draft_tokens_total";
  public static final String ACCEPTED_TOKENS = "llamacpp:spec_decode_num_accepted_tokens_total";
  public static final String ACCEPTED_PER_POSITION =
      "llamacpp:spec_decode_num_accepted_tokens_per_pos_total";
  public static final String GENERATION_TOKENS = "llamacpp:tokens_predicted_total";
  public static final String RUNNING_REQUESTS = "llamacpp:requests_processing";

  private static final VllmProfile QUERIES =
      new VllmProfile(
          new VllmProfile.Names(
              DRAFTS,
              DRAFT_TOKENS,
              ACCEPTED_TOKENS,
              ACCEPTED_PER_POSITION,
              "position",
              GENERATION_TOKENS,
              RUNNING_REQUESTS));

  private LlamacppProfile() {}

  @Override
  public String name() {
    return "llamacpp";
  }

  @Override
  public Set<Signal> supported() {
    return EnumSet.complementOf(EnumSet.of(Signal.DRAFT_OVERHEAD));
  }

  @Override
  public String query(Signal signal, QueryScope scope) {
    if (signal == Signal.DRAFT_OVERHEAD) {
      throw new IllegalArgumentException("llamacpp does not export " + signal.key());
    }
    return QUERIES.query(signal, scope.withoutK());
  }

  @Override
  public Optional<String> fullShapeSeries() {
    return Optional.of(ACCEPTED_PER_POSITION);
  }

  @Override
  public Optional<ActiveK> activeK() {
    // Written per position once a draft has reached it: the longest draft seen, at most
    // --spec-draft-n-max.
    return Optional.of(ActiveK.positions(ACCEPTED_PER_POSITION, "position", false));
  }

  @Override
  public SignalForm form(boolean fullShape) {
    return new SignalForm(
        false,
        fullShape
            ? SignalForm.EXPORTED
            : "not yet exported: llama-server writes it after the first finished speculative"
                + " request",
        List.of());
  }

  @Override
  public Optional<String> coverageSeries() {
    return Optional.of(DRAFTS);
  }

  @Override
  public Optional<String> counterOf(Signal rate) {
    return QUERIES.counterOf(rate);
  }

  @Override
  public boolean draftLengthMeasured() {
    return true;
  }

  @Override
  public List<RecordingRules.Group> recordingRules() {
    // llama.cpp labels nothing (one server, one model): by job. Its counters are vLLM's schema, so
    // everything is exact without k (docs/ENGINES.md).
    QueryScope byJob = new QueryScope(List.of("job"), List.of(), RecordingRules.WINDOW);
    List<RecordingRules.Rule> rules =
        RecordingRules.concat(
            RecordingRules.standard(
                "llamacpp:",
                this,
                byJob,
                Signal.ACCEPTANCE_RATE,
                Signal.MEAN_ACCEPTED_LENGTH,
                Signal.POSITION_ACCEPTANCE,
                Signal.DRAFT_TOKENS_PER_SECOND,
                Signal.ACCEPTED_TOKENS_PER_SECOND,
                Signal.GENERATION_TOKENS_PER_SECOND),
            List.of(
                new RecordingRules.Rule(
                    "llamacpp:requests_processing:avg1m", query(Signal.RUNNING_REQUESTS, byJob))));
    return List.of(
        new RecordingRules.Group(
            "llamacpp-spec-decode",
            "llama.cpp's llama-server --metrics: no labels, so by job.",
            rules));
  }

  @Override
  public Set<String> discoverySeries() {
    return Set.of(
        GENERATION_TOKENS,
        RUNNING_REQUESTS,
        DRAFTS,
        DRAFT_TOKENS,
        ACCEPTED_TOKENS,
        ACCEPTED_PER_POSITION);
  }

  @Override
  public Set<String> speculativeSeries() {
    return Set.of(ACCEPTED_PER_POSITION);
  }

  @Override
  public Map<String, String> discoveryFigures() {
    return Map.of(
        "k",
        Discovered.positionCount(ACCEPTED_PER_POSITION, "position"),
        "draft_tokens",
        "max by (job, model_name) (" + DRAFT_TOKENS + ")");
  }

  @Override
  public Discovered discovered(Discovered.Series s) {
    boolean positions = s.has(ACCEPTED_PER_POSITION);
    boolean drafted = positions || s.figure("draft_tokens").orElse(0.0) > 0;
    Optional<Integer> k = Discovered.k(s);
    return new Discovered(
        positions ? "per-position" : "no finished speculative request yet",
        k,
        k.isPresent()
            ? "the longest draft seen (" + ACCEPTED_PER_POSITION + "), at most --spec-draft-n-max"
            : "not exported until a speculative request finishes: set num_speculative_tokens to"
                + " its --spec-draft-n-max",
        drafted,
        positions,
        s.has(RUNNING_REQUESTS),
        drafted && !positions
            ? List.of("position_acceptance: written after the first finished speculative request")
            : List.of());
  }
}
