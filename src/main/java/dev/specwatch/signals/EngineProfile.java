package dev.specwatch.signals;

import dev.specwatch.model.Engine;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How one serving engine exposes speculative decoding, as PromQL per {@link Signal}. The same
 * profile renders the recording rules in rules/ and the daemon's queries, so both always agree.
 */
public sealed interface EngineProfile
    permits VllmProfile, SglangProfile, TrtllmProfile, LlamacppProfile {
  /**
   * Each engine's generation-token counter: what every served model exports, speculating or not.
   */
  java.util.Map<Engine, String> SERVED =
      java.util.Map.of(
          Engine.VLLM, VllmProfile.GENERATION_TOKENS,
          Engine.SGLANG, SglangProfile.GENERATION_TOKENS,
          Engine.TRTLLM, TrtllmProfile.GENERATION_TOKENS,
          Engine.LLAMACPP, LlamacppProfile.GENERATION_TOKENS,
          Engine.RAY_VLLM, VllmProfile.RAY_GENERATION_TOKENS);

  /** The {@code engine:} value in policies: {@code vllm}, {@code sglang}, ... */
  String name();

  /** The signals this engine can report. */
  Set<Signal> supported();

  /**
   * The PromQL for {@code signal} over {@code scope}. The result has one series per distinct
   * combination of {@code scope.groupBy()} (plus {@code position} for position acceptance). Ratios
   * have no sample when there were no drafts in the window.
   *
   * @throws IllegalArgumentException when the signal is not {@link #supported()}
   */
  String query(Signal signal, QueryScope scope);

  /**
   * Whether the queries need the recipes' k ({@link QueryScope#k()}): true where the engine exports
   * no draft-token counter, so acceptance is derived from the accepted length.
   */
  default boolean needsK() {
    return false;
  }

  /**
   * Whether the engine counts drafts and draft tokens apart (vLLM's schema), so that their ratio is
   * the drafts' measured mean length rather than k by construction.
   */
  default boolean draftLengthMeasured() {
    return false;
  }

  /**
   * Series that only an older release of the engine's server exports, each with what specwatch says
   * of a server that has them instead of the engine's own: why a policy on it reads no data.
   */
  default Map<String, String> olderReleaseMarkers() {
    return Map.of();
  }

  /**
   * The {@code model_name} the engine's server writes on every series whatever it serves (a
   * placeholder, not a name), with where that is read; empty where the label names the model.
   * {@code discover} then tells such servers apart by their job, and a policy matching a real name
   * on them is told why it finds nothing.
   */
  default Optional<Map.Entry<String, String>> placeholderModelName() {
    return Optional.empty();
  }

  /**
   * Where the engine says which k its servers run, read by the evaluator once per group and
   * compared with the policy's {@code num_speculative_tokens}; empty where it does not say.
   */
  default Optional<ActiveK> activeK() {
    return Optional.empty();
  }

  /**
   * The series whose presence tells this engine's full release shape from an older or reduced one
   * (vLLM: {@code num_drafts}; SGLang: the verify counter; TensorRT-LLM: the per-position
   * counters), or none where there is one shape only.
   */
  default Optional<String> fullShapeSeries() {
    return Optional.empty();
  }

  /**
   * How a recipe's figures were obtained, given whether its servers export {@link
   * #fullShapeSeries()}.
   */
  default SignalForm form(boolean fullShape) {
    return new SignalForm(false, SignalForm.EXPORTED, List.of());
  }

  /**
   * The series {@code discover} looks for, by {@code (job, model_name)}: the served counter, the
   * speculative ones and the running-requests gauge. Their names alone tell the release shape.
   */
  Set<String> discoverySeries();

  /**
   * Series whose presence says the model is served by this engine with speculative decoding: such a
   * model is listed by {@code discover} even where the {@link #SERVED} counter is missing (it says
   * what that costs), not dropped.
   */
  Set<String> speculativeSeries();

  /**
   * The figures {@code discover} asks of Prometheus for this engine, by name: PromQL returning one
   * series per {@code (job, model_name)} (one query each for the whole fleet, none per model).
   */
  default java.util.Map<String, String> discoveryFigures() {
    return java.util.Map.of();
  }

  /**
   * The counter whose rate {@code rate} is, where the engine exports one ({@code
   * draft_tokens_per_second} is the rate of the draft-token counter): a week's total is then its
   * increase, not a rate times the week.
   */
  default Optional<String> counterOf(Signal rate) {
    return Optional.empty();
  }

  /**
   * A counter exported whenever the recipe speculates, whose first sample says from when its data
   * covers a window ({@code advise}), or empty where the engine has none that is exact.
   */
  default Optional<String> coverageSeries() {
    return Optional.empty();
  }

  /**
   * Whether acceptance is derived with the policy's k (SGLang's {@code (L − 1) / k}), so that a
   * figure above 1 says the policy's k is below the server's rather than that the data is bad.
   */
  default boolean acceptanceFromK() {
    return false;
  }

  /**
   * The prefix of vLLM's per-request histograms ({@code request_decode_time_seconds}, {@code
   * request_generation_tokens}) where the engine exports them, for the finished requests' decode
   * speed (docs/SPEEDUP.md); empty where it does not.
   */
  default Optional<String> finishedRequestHistograms() {
    return Optional.empty();
  }

  /**
   * The engine's groups in rules/vllm-spec-decode.rules.yaml ({@link RecordingRules}), in order:
   * what a recording rule can compute without a policy (no k the servers do not say).
   */
  default java.util.List<RecordingRules.Group> recordingRules() {
    return java.util.List.of();
  }

  /** What the series of one {@code (job, model_name)} say of its shape, k and what is missing. */
  Discovered discovered(Discovered.Series series);

  static EngineProfile of(Engine engine) {
    return switch (engine) {
      case VLLM -> VllmProfile.INSTANCE;
      case SGLANG -> SglangProfile.INSTANCE;
      case TRTLLM -> TrtllmProfile.INSTANCE;
      case LLAMACPP -> LlamacppProfile.INSTANCE;
      case RAY_VLLM -> VllmProfile.RAY_SERVE;
    };
  }
}
