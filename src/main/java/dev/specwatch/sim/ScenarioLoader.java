package dev.specwatch.sim;

import dev.specwatch.model.Engine;
import dev.specwatch.model.Location;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.MapReader;
import dev.specwatch.yaml.Problems;
import dev.specwatch.yaml.YamlNode;
import dev.specwatch.yaml.YamlParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a scenario file, reporting every problem as {@code FILE:LINE:COL: key.path: message}
 * through {@link InvalidInputException}. The format is documented in docs/SIMULATOR.md.
 */
public final class ScenarioLoader {
  /** The scenario `specwatch simulate` and `make demo` run when none is given. */
  public static final String DEFAULT_RESOURCE = "/dev/specwatch/sim/default-scenario.yaml";

  private static final int DEFAULT_OUTPUT_TOKENS = 256;
  private static final int DEFAULT_PROMPT_TOKENS = 1024;

  private ScenarioLoader() {}

  public static Scenario load(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw singleProblem(file.toString(), "file not found");
    } catch (IOException e) {
      throw singleProblem(file.toString(), "cannot read: " + e.getMessage());
    }
    Path dir = file.toAbsolutePath().getParent();
    return parse(file.toString(), text, dir);
  }

  public static Scenario loadDefault() {
    try (InputStream in = ScenarioLoader.class.getResourceAsStream(DEFAULT_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("default scenario missing from the jar");
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return parse("default-scenario.yaml", text, Path.of("."));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Scenario parse(String fileName, String text, Path baseDir) {
    Problems problems = new Problems();
    // Scenarios are test fixtures: no ${ENV} interpolation, so '$' in model names stays literal.
    Optional<YamlNode> root = new YamlParser(fileName, problems, null).parse(text);
    Scenario scenario =
        root.flatMap(r -> MapReader.of(r, "", problems, baseDir))
            .flatMap(r -> readScenario(r, fileName))
            .orElse(null);
    problems.throwIfAny();
    return scenario;
  }

  private static Optional<Scenario> readScenario(MapReader r, String fileName) {
    String name = r.string("name", fileName);
    boolean repeatAll = r.bool("repeat", false);
    if (!r.has("models")) {
      r.error("models", "is required: a list of models to serve");
    }
    List<YamlNode> rawModels = r.list("models", (node, path) -> Optional.of(node));
    List<ModelScenario> models = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < rawModels.size(); i++) {
      String path = r.pathOf("models") + "[" + i + "]";
      MapReader.of(rawModels.get(i), path, r.problems(), r.baseDir())
          .flatMap(m -> readModel(m, repeatAll))
          .ifPresent(models::add);
      if (rawModels.get(i) instanceof YamlNode.Mapping m
          && m.entries().get("model_name") instanceof YamlNode.Scalar modelName) {
        Integer first = seen.putIfAbsent(modelName.text(), i);
        if (first != null) {
          r.problems()
              .add(
                  modelName.location(),
                  path + ".model_name",
                  "'" + modelName.text() + "' is already used by models[" + first + "]");
        }
      }
    }
    if (r.has("models") && rawModels.isEmpty()) {
      r.error("models", "must list at least one model");
    }
    for (Expositions.Shape shape : Expositions.ALL) {
      if (!shape.labelled()
          && models.stream().filter(m -> m.engine() == shape.engine()).count() > 1) {
        r.error(
            "models",
            "one "
                + shape.engine().key()
                + " model at most: its series carry no model label, so one /metrics serves one"
                + " model (run a simulator per model)");
      }
    }
    r.finish();
    if (!r.problems().isEmpty() || models.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Scenario(name, models));
  }

  private static Optional<ModelScenario> readModel(MapReader m, boolean repeatAll) {
    String modelName = m.requiredString("model_name");
    String engineKey = m.string("engine", Engine.VLLM.key());
    Engine engine =
        Engine.parse(engineKey)
            .filter(e -> ModelScenario.engineKeys().contains(e.key()))
            .orElse(null);
    if (engine == null) {
      m.error("engine", "one of " + String.join(", ", ModelScenario.engineKeys()));
    }
    int engines = m.integer("engines", 1, 1, 1024);
    List<String> versions = engine == null ? List.of("") : ModelScenario.versions(engine);
    String version = m.string("version", versions.get(0));
    if (!versions.contains(version)) {
      m.error("version", "one of " + String.join(", ", versions) + " for engine " + engineKey);
    }
    int k = m.integer("num_speculative_tokens", -1, 0, 64);
    if (!m.has("num_speculative_tokens")) {
      m.error(
          "num_speculative_tokens",
          "is required (the k of --speculative-config; 0 for a deployment without speculation)");
    }
    if (k == 0 && engine != Engine.VLLM) {
      m.error("num_speculative_tokens", "0 (no speculation) is simulated for vllm only");
    }
    Optional<StepTime> stepTime = m.map("step_time").flatMap(StepTime::read);
    boolean repeat = m.bool("repeat", repeatAll);
    if (!m.has("phases")) {
      m.error("phases", "is required: a list of traffic phases");
    }
    int problemsBefore = m.problems().sorted().size();
    List<YamlNode> rawPhases = m.list("phases", (node, path) -> Optional.of(node));
    List<Phase> phases = new ArrayList<>();
    int currentK = Math.max(k, 0);
    // SGLang's adaptive speculation changes k without a restart, and says so in its active gauges.
    boolean kAtRunTime = engine == Engine.SGLANG && version.equals(ModelScenario.SGLANG_ACTIVE_K);
    for (int i = 0; i < rawPhases.size(); i++) {
      boolean last = i == rawPhases.size() - 1;
      final int kBefore = currentK;
      final boolean first = i == 0;
      Optional<Phase> phase =
          MapReader.of(
                  rawPhases.get(i), m.pathOf("phases") + "[" + i + "]", m.problems(), m.baseDir())
              .flatMap(p -> readPhase(p, kBefore, first, last && !repeat, stepTime, kAtRunTime));
      if (phase.isPresent()) {
        phases.add(phase.get());
        currentK = phase.get().numSpeculativeTokens();
      }
    }
    if (m.has("phases") && rawPhases.isEmpty()) {
      m.error("phases", "must list at least one phase");
    }
    m.finish();
    if (m.problems().sorted().size() > problemsBefore
        || phases.size() != rawPhases.size()
        || modelName.isEmpty()
        || k < 0
        || phases.isEmpty()) {
      return Optional.empty();
    }
    if (engine == null) {
      return Optional.empty();
    }
    if (!versions.contains(version)) {
      return Optional.empty();
    }
    return Optional.of(new ModelScenario(modelName, engine, engines, phases, repeat, version));
  }

  private static Optional<Phase> readPhase(
      MapReader p,
      int kBefore,
      boolean first,
      boolean mayLastForever,
      Optional<StepTime> stepTime,
      boolean kAtRunTime) {
    String name = p.string("name", p.path());
    Optional<Duration> duration = p.optionalDuration("duration");
    boolean durationOk = true;
    if (duration.isEmpty() && !p.has("duration") && !mayLastForever) {
      p.error("duration", "is required (only the last phase of a non-repeating model may omit it)");
      durationOk = false;
    } else if (duration.isPresent() && duration.get().isZero()) {
      p.error("duration", "must be longer than 0s");
      durationOk = false;
    } else if (duration.isEmpty() && p.has("duration")) {
      durationOk = false;
    }
    boolean restart = p.bool("restart", false);
    int k = p.integer("num_speculative_tokens", kBefore, 0, 64);
    if (k != kBefore && !restart && !first && !kAtRunTime) {
      p.error(
          "num_speculative_tokens",
          "changing k needs a vLLM restart: add 'restart: true' to this phase (only SGLang's"
              + " active-k version changes k at run time)");
    }
    boolean idle = p.bool("idle", false);
    double rps = p.number("requests_per_second", 0, 0, 1_000_000);
    if (idle && rps > 0) {
      p.error("requests_per_second", "an idle phase has no requests; drop one of the two");
    }
    int output = p.integer("output_tokens_per_request", DEFAULT_OUTPUT_TOKENS, 1, 10_000_000);
    int prompt = p.integer("prompt_tokens_per_request", DEFAULT_PROMPT_TOKENS, 0, 10_000_000);
    boolean fromLoad = stepTime.isPresent() && p.has("running_requests") && !idle;
    if (fromLoad && p.has("requests_per_second")) {
      p.error(
          "requests_per_second",
          "with the model's step_time the load (running_requests) sets the rate; drop one");
    }
    double running =
        p.number("running_requests", Phase.defaultRunningRequests(rps, output), 0, 1_000_000);
    List<Double> acceptance = readAcceptance(p, k, (rps > 0 || fromLoad) && k > 0);
    p.finish();
    if (fromLoad && acceptance.size() == k) {
      // Each running request emits E_k tokens per step of the step-time model.
      double length = 1 + acceptance.stream().mapToDouble(Double::doubleValue).sum();
      rps = stepTime.get().tokensPerSecond(running, k, length) / output;
    }
    if (!durationOk || (rps > 0 && acceptance.size() != k) || (idle && rps > 0)) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new Phase(
              name,
              duration.orElse(null),
              rps,
              output,
              prompt,
              k,
              rps > 0 ? acceptance : List.of(),
              restart,
              running));
    } catch (IllegalArgumentException e) {
      p.error("", e.getMessage());
      return Optional.empty();
    }
  }

  private static List<Double> readAcceptance(MapReader p, int k, boolean needed) {
    String key = "position_acceptance";
    if (!p.has(key)) {
      if (needed) {
        p.error(
            key,
            "is required for a phase with traffic: one acceptance (0..1) per draft "
                + "position, e.g. [0.9, 0.8, 0.7] for k=3");
      }
      return List.of();
    }
    List<Double> values =
        p.list(
            key,
            (node, path) -> {
              if (node instanceof YamlNode.Scalar s && !s.isNull()) {
                try {
                  double v = Double.parseDouble(s.text().trim());
                  if (v >= 0 && v <= 1) {
                    return Optional.of(v);
                  }
                  p.problems()
                      .add(node.location(), path, "must be between 0 and 1, got " + s.text());
                } catch (NumberFormatException e) {
                  p.problems()
                      .add(node.location(), path, "expected a number, got '" + s.text() + "'");
                }
              } else {
                p.problems().add(node.location(), path, "expected a number, got " + node.kind());
              }
              return Optional.empty();
            });
    if (p.node(key)
        .map(n -> n instanceof YamlNode.Sequence s && s.items().size() != k)
        .orElse(false)) {
      p.error(
          key,
          "has "
              + ((YamlNode.Sequence) p.node(key).get()).items().size()
              + " values but num_speculative_tokens is "
              + k
              + ": give one per draft position");
    }
    for (int i = 1; i < values.size(); i++) {
      if (values.get(i) > values.get(i - 1)) {
        YamlNode.Sequence seq = (YamlNode.Sequence) p.node(key).get();
        Location at = seq.items().get(i).location();
        p.problems()
            .add(
                at,
                p.pathOf(key) + "[" + i + "]",
                "must not exceed position "
                    + (i - 1)
                    + " ("
                    + values.get(i - 1)
                    + "): vLLM accepts a position only after all earlier ones");
      }
    }
    return values;
  }

  private static InvalidInputException singleProblem(String file, String msg) {
    Problems problems = new Problems();
    problems.add(new Location(file, 1, 1), "", msg);
    return new InvalidInputException(problems.sorted());
  }
}
