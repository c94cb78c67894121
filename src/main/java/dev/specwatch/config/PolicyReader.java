package dev.specwatch.config;

import dev.specwatch.model.Engine;
import dev.specwatch.model.LabelMatcher;
import dev.specwatch.model.Location;
import dev.specwatch.model.Policy;
import dev.specwatch.model.Severity;
import dev.specwatch.model.Threshold;
import dev.specwatch.model.TimeInterval;
import dev.specwatch.yaml.MapReader;
import dev.specwatch.yaml.Problems;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads the policy files of the policies directory: one recipe per file, every problem reported,
 * duplicate recipe names and identical selectors caught across files.
 */
final class PolicyReader {
  private final ConfigLoader.FileReader fileReader;

  PolicyReader(ConfigLoader.FileReader files) {
    this.fileReader = files;
  }

  /**
   * The policies in {@code dir}; {@code named} are the config file's {@code time_intervals}, which
   * a policy's {@code mute_time_intervals} name.
   */
  List<Policy> load(
      Path dir, MapReader config, Problems problems, Map<String, List<TimeInterval>> named) {
    if (!Files.isDirectory(dir)) {
      config.error("policies", "directory " + dir + " does not exist" + DiscoverHint.of(dir));
      return List.of();
    }
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*.{yaml,yml}")) {
      stream.forEach(files::add);
    } catch (IOException e) {
      config.error("policies", "cannot list " + dir + ": " + e.getMessage());
      return List.of();
    }
    files.sort(null);
    List<Policy> policies = new ArrayList<>();
    Map<String, Location> byName = new LinkedHashMap<>();
    Map<String, Policy> byIdentity = new HashMap<>();
    Map<String, Location> baselineKeys = new HashMap<>();
    for (Path file : files) {
      Optional<MapReader> reader = fileReader.read(file, problems);
      if (reader.isEmpty()) {
        continue;
      }
      MapReader r = reader.get();
      Optional<Policy> policy = readPolicy(r, file, named);
      // Names are checked even for invalid policies, so every duplicate shows in one run.
      String name = r.string("recipe", "");
      Location first = name.isEmpty() ? null : byName.putIfAbsent(name, r.locationOf("recipe"));
      if (first != null) {
        r.error("recipe", "recipe '" + name + "' is already defined at " + first);
        continue;
      }
      if (policy.isEmpty()) {
        continue;
      }
      Policy p = policy.get();
      if (p.speedupBaseline().isPresent()) {
        baselineKeys.put(p.recipe(), r.locationOf("speedup_baseline"));
      }
      String identity = p.engine().key() + p.match();
      Policy same = byIdentity.putIfAbsent(identity, p);
      if (same != null) {
        problems.add(
            p.source(),
            "match",
            "selects the same series as recipe '" + same.recipe() + "' (" + same.source() + ")");
        continue;
      }
      policies.add(p);
    }
    SpeedupBaselines.check(policies, baselineKeys, problems);
    return policies;
  }

  private Optional<Policy> readPolicy(
      MapReader r, Path file, Map<String, List<TimeInterval>> named) {
    int problemsBefore = r.problemCount();
    String recipe = r.requiredString("recipe");
    RecipeNames.problem(recipe).ifPresent(problem -> r.error("recipe", problem));
    String engineName = r.string("engine", Engine.VLLM.key());
    Optional<Engine> parsedEngine = Engine.parse(engineName);
    if (parsedEngine.isEmpty()) {
      r.error("engine", "unknown engine '" + engineName + "'; one of " + Engine.keys());
    }
    Engine engine = parsedEngine.orElse(Engine.VLLM);
    TreeMap<String, String> match = new TreeMap<>();
    Optional<MapReader> m = r.map("match");
    if (m.isEmpty() && !r.has("match")) {
      r.error(
          "match",
          "is required: the labels that select this recipe's series,"
              + " e.g. {job: vllm, model_name: unsloth/Qwen3.8-27B-NVFP4}");
    }
    m.ifPresent(
        mr -> {
          for (String label : mr.keys()) {
            Optional<String> value = mr.optionalString(label);
            if (!LabelMatcher.isValidLabelName(label)) {
              mr.keyError(
                  label,
                  "'"
                      + label
                      + "' is not a valid Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not __*)");
            } else if (value.isEmpty() || value.get().isEmpty()) {
              mr.error(
                  label, "needs a value (an empty value would match series without the label)");
            } else {
              match.put(label, value.get());
            }
          }
          if (mr.keys().isEmpty()) {
            mr.error("", "list at least one label");
          }
        });
    int k = SpeedupBaselines.k(r);
    Optional<String> speedupBaseline = r.optionalString("speedup_baseline");
    long minDrafts = r.integer("min_drafts", (int) Policy.DEFAULT_MIN_DRAFTS, 0, Integer.MAX_VALUE);
    Duration forDuration = r.duration("for", Policy.DEFAULT_FOR);
    Duration keepFiring = r.duration("keep_firing_for", Policy.DEFAULT_KEEP_FIRING_FOR);
    Policy.Thresholds thresholds =
        r.map("thresholds")
            .map(t -> readThresholds(t, Math.max(k, 1), engine))
            .orElse(Policy.Thresholds.none());
    Policy.Notify notify =
        r.map("notify")
            .map(
                n -> {
                  Optional<String> channel = n.optionalString("slack_channel");
                  Severity severity = Converters.severity(n).orElse(Policy.Notify.DEFAULT_SEVERITY);
                  n.finish();
                  return new Policy.Notify(channel, severity);
                })
            .orElse(Policy.Notify.defaults());
    Map<String, String> labels = r.stringMap("labels");
    Optional<String> runbook = r.optionalString("runbook_url");
    Optional<Policy.Slo> slo =
        r.map("slo")
            .flatMap(
                o -> {
                  OptionalDouble objective = o.optionalNumber("objective", 0.5, 0.99999);
                  if (!o.has("objective")) {
                    o.error(
                        "objective",
                        "is required, e.g. 0.99 (99 % of active slices meet the target)");
                  }
                  OptionalDouble target = o.optionalNumber("acceptance_rate", 0, 1);
                  if (!o.has("acceptance_rate")) {
                    o.error(
                        "acceptance_rate",
                        "is required: the acceptance a slice must reach, e.g. 0.45");
                  }
                  Duration slice = o.duration("slice", Policy.Slo.DEFAULT_SLICE);
                  Duration period = o.duration("period", Policy.Slo.DEFAULT_PERIOD);
                  if (period.compareTo(Duration.ofDays(1)) < 0
                      || slice.compareTo(Duration.ofMinutes(1)) < 0) {
                    o.error("period", "needs period >= 1d and slice >= 1m");
                  }
                  o.finish();
                  return objective.isPresent() && target.isPresent()
                      ? Optional.of(
                          new Policy.Slo(
                              objective.getAsDouble(), target.getAsDouble(), slice, period))
                      : Optional.empty();
                });
    List<Policy.Maintenance> maintenance =
        new ArrayList<>(
            r.list(
                "maintenance",
                (node, path) ->
                    MapReader.of(node, path, r.problems(), r.baseDir())
                        .flatMap(MaintenanceReader::read)));
    maintenance.addAll(MaintenanceReader.muted(r, named));
    Policy.Detection detection = detection(r, engine);
    Optional<Policy.ImportedFrom> importedFrom =
        r.map("imported_from")
            .flatMap(
                i -> {
                  String recipeFile = i.requiredString("recipe");
                  String method = i.string("method", "unspecified");
                  i.finish();
                  Path dir = file.toAbsolutePath().getParent();
                  return recipeFile.isEmpty()
                      ? Optional.empty()
                      : Optional.of(
                          new Policy.ImportedFrom(
                              dir.resolve(recipeFile).normalize(), recipeFile, method));
                });
    r.finish();
    if (r.problemCount() > problemsBefore
        || parsedEngine.isEmpty()
        || match.isEmpty()
        || k < 0
        || recipe.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        new Policy(
            recipe,
            engine,
            match,
            k,
            minDrafts,
            forDuration,
            keepFiring,
            thresholds,
            notify,
            labels,
            runbook,
            maintenance,
            slo,
            detection,
            r.location(),
            importedFrom,
            speedupBaseline));
  }

  private Policy.Thresholds readThresholds(MapReader t, int k, Engine engine) {
    ThresholdLines acceptance =
        t.map("acceptance_rate").map(a -> ThresholdLines.read(a, 0, 1)).orElse(ThresholdLines.NONE);
    ThresholdLines meanLength =
        t.map("mean_accepted_length")
            .map(a -> ThresholdLines.read(a, 1, k + 1))
            .orElse(ThresholdLines.NONE);
    TreeMap<Integer, Threshold> positions = new TreeMap<>();
    t.map("position_acceptance")
        .ifPresent(
            p -> {
              if (!engine.positionCounters()) {
                p.error(
                    "",
                    engine.key() + " exports no per-position counters; remove position_acceptance");
              }
              for (String key : new TreeSet<>(p.keys())) {
                int position;
                try {
                  position = Integer.parseInt(key);
                } catch (NumberFormatException e) {
                  p.keyError(key, "positions are 0-based numbers, e.g. \"0\"");
                  continue;
                }
                if (position < 0 || position >= k) {
                  p.keyError(
                      key,
                      "position "
                          + position
                          + " does not exist with num_speculative_tokens "
                          + k
                          + " (positions 0.."
                          + (k - 1)
                          + ")");
                  continue;
                }
                p.map(key)
                    .flatMap(a -> ThresholdLines.floor(a, 0, 1))
                    .ifPresent(th -> positions.put(position, th));
              }
            });
    Optional<Policy.Regression> regression =
        t.map("regression")
            .flatMap(
                g -> {
                  OptionalDouble drop = g.optionalNumber("max_relative_drop", 0.001, 1);
                  if (!g.has("max_relative_drop")) {
                    g.error("max_relative_drop", "is required, e.g. 0.15 for a 15 % drop");
                  }
                  Duration baseline = g.duration("baseline", Policy.Regression.DEFAULT_BASELINE);
                  double minZ = g.number("min_z", Policy.Regression.DEFAULT_MIN_Z, 0, 100);
                  long minDrafts =
                      g.integer(
                          "min_baseline_drafts",
                          (int) Policy.Regression.DEFAULT_MIN_BASELINE_DRAFTS,
                          0,
                          Integer.MAX_VALUE);
                  Optional<Severity> severity = Converters.severity(g);
                  g.finish();
                  return drop.isPresent()
                      ? Optional.of(
                          new Policy.Regression(
                              drop.getAsDouble(), baseline, minZ, minDrafts, severity))
                      : Optional.empty();
                });
    Optional<Policy.Throughput> throughput =
        t.map("throughput")
            .flatMap(
                g -> {
                  OptionalDouble drop = g.optionalNumber("max_relative_drop", 0.001, 1);
                  if (!g.has("max_relative_drop")) {
                    g.error("max_relative_drop", "is required, e.g. 0.3 for a 30 % drop");
                  }
                  Duration baseline = g.duration("baseline", Policy.Regression.DEFAULT_BASELINE);
                  Optional<Severity> severity = Converters.severity(g);
                  g.finish();
                  return drop.isPresent()
                      ? Optional.of(new Policy.Throughput(drop.getAsDouble(), baseline, severity))
                      : Optional.empty();
                });
    Optional<Policy.Change> change = t.map("change").flatMap(PolicyReader::change);
    if (t.has("change")) {
      engine.noStepLearning().ifPresent(why -> t.error("change", "not for " + engine + ": " + why));
    }
    Optional<Policy.Speedup> speedup = t.map("speedup").flatMap(SpeedupBaselines::threshold);
    t.finish();
    return new Policy.Thresholds(
        acceptance.floor(),
        meanLength.floor(),
        positions,
        regression,
        throughput,
        change,
        speedup,
        new Policy.Ceilings(acceptance.ceiling(), meanLength.ceiling()));
  }

  private static Optional<Policy.Change> change(MapReader c) {
    OptionalDouble drop = c.optionalNumber("min_relative_drop", 0.01, 0.8);
    if (!c.has("min_relative_drop")) {
      c.error(
          "min_relative_drop", "is required, e.g. 0.10: the smallest sustained drop to page on");
    }
    Duration interval = c.duration("false_alarm_interval", Policy.DEFAULT_FALSE_ALARM_INTERVAL);
    if (interval.compareTo(Duration.ofHours(1)) < 0) {
      c.error("false_alarm_interval", "must be at least 1h, e.g. 30d");
    }
    Duration learn = c.duration("learn", Policy.Change.DEFAULT_LEARN);
    if (learn.compareTo(Duration.ofDays(1)) < 0 || learn.compareTo(Duration.ofDays(35)) > 0) {
      c.error("learn", "must be from 1d to 35d: the history the normal level is learned from");
    }
    Optional<Severity> severity = Converters.severity(c);
    c.finish();
    return drop.isPresent()
        ? Optional.of(new Policy.Change(drop.getAsDouble(), interval, learn, severity))
        : Optional.empty();
  }

  /** {@code detection} and its {@code false_alarm_interval}. */
  private static Policy.Detection detection(MapReader r, Engine engine) {
    String mode = r.string("detection", "window");
    Duration interval = r.duration("false_alarm_interval", Policy.DEFAULT_FALSE_ALARM_INTERVAL);
    if (interval.compareTo(Duration.ofHours(1)) < 0) {
      r.error("false_alarm_interval", "must be at least 1h, e.g. 30d");
    }
    Policy.Detection.Mode parsed =
        switch (mode) {
          case "window" -> Policy.Detection.Mode.WINDOW;
          case "sequential" -> Policy.Detection.Mode.SEQUENTIAL;
          default -> {
            r.error("detection", "one of window (the rate window) or sequential");
            yield Policy.Detection.Mode.WINDOW;
          }
        };
    if (parsed == Policy.Detection.Mode.SEQUENTIAL) {
      engine
          .noStepLearning()
          .ifPresent(why -> r.error("detection", "sequential is not for " + engine + ": " + why));
    }
    return new Policy.Detection(parsed, interval);
  }
}
