package dev.specwatch.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.recipes.Drift;
import dev.specwatch.signals.EvaluationJson;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problem;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description = {
      "Checks a configuration and every policy file, without contacting anything.",
      "Exit 0 when valid; exit 2 printing every error as FILE:LINE:COL: key.path: message."
    })
final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Mixin OutputOption output;

  @Override
  public Integer call() throws JsonProcessingException {
    PrintWriter out = spec.commandLine().getOut();
    if (output.json()) {
      return json(out);
    }
    SpecwatchConfig c = config.load();
    out.printf(
        "%s: valid; %d recipe(s) from %s%n", config.file, c.policies().size(), c.policiesDir());
    out.println("  state: " + c.describeState());
    for (Policy p : c.policies()) {
      out.printf(
          "  %s (%s, k=%d) %s%s%n",
          p.recipe(),
          p.engine(),
          p.numSpeculativeTokens(),
          p.match(),
          p.importedFrom().map(f -> " from " + f.written() + " (" + f.method() + ")").orElse("")
              + p.speedupBaseline().map(b -> ", speed-up against " + b).orElse(""));
      for (Policy.Maintenance m : p.maintenance()) {
        out.printf(
            "    maintenance: %s%s%n",
            m.describe(), m.comment().isEmpty() ? "" : " (" + m.comment() + ")");
      }
    }
    for (Policy p : c.baselines()) {
      List<String> of =
          c.policies().stream()
              .filter(x -> x.speedupBaseline().filter(p.recipe()::equals).isPresent())
              .map(Policy::recipe)
              .toList();
      out.printf(
          "  %s (%s, %s%s) %s%n",
          p.recipe(),
          p.engine(),
          p.plainRole(),
          of.isEmpty() ? "" : "; speed-up baseline of " + String.join(", ", of),
          p.match());
    }
    for (String warning : warnings(c)) {
      out.println("warning: " + warning);
    }
    out.flush();
    return ExitCodes.OK;
  }

  /**
   * Recipe drift, a listen address exposed without a token, and a state directory this user could
   * not use (a warning, not an error: the config may be validated where it does not run).
   */
  private static List<String> warnings(SpecwatchConfig c) {
    List<String> out = new ArrayList<>(Drift.check(c.policies()));
    c.server().exposureWarning().ifPresent(out::add);
    c.fileStateDir().flatMap(ValidateCommand::stateDirProblem).ifPresent(out::add);
    return out;
  }

  /**
   * Why {@code specwatch run} as this user would stop at {@code dir}: it cannot be created, or
   * exists and cannot be written. Empty when it can (nothing is created or written here).
   */
  static Optional<String> stateDirProblem(Path dir) {
    Path d = dir.toAbsolutePath().normalize();
    String user = System.getProperty("user.name");
    String fix =
        ": `specwatch run` as "
            + user
            + " would stop there; run it as the user that owns it (the systemd unit's specwatch,"
            + " the image's 10001), or set state.dir to a directory "
            + user
            + " can write";
    if (Files.isDirectory(d)) {
      return Files.isWritable(d)
          ? Optional.empty()
          : Optional.of("state.dir " + d + " is not writable by " + user + fix);
    }
    if (Files.exists(d)) {
      return Optional.of("state.dir " + d + " is not a directory");
    }
    Path parent = d.getParent();
    while (parent != null && !Files.exists(parent)) {
      parent = parent.getParent();
    }
    if (parent == null || !Files.isDirectory(parent)) {
      return Optional.of("state.dir " + d + " cannot be created: no existing parent");
    }
    return Files.isWritable(parent)
        ? Optional.empty()
        : Optional.of(
            "state.dir "
                + d
                + " does not exist and cannot be created by "
                + user
                + " ("
                + parent
                + " is not writable)"
                + fix);
  }

  /** {"valid": true, "recipes": [...]} or {"valid": false, "errors": [{file, line, ...}]}. */
  private int json(PrintWriter out) throws JsonProcessingException {
    Map<String, Object> root = new LinkedHashMap<>();
    int code = ExitCodes.OK;
    try {
      SpecwatchConfig c = config.load();
      root.put("valid", true);
      List<Object> recipes = new ArrayList<>();
      for (Policy p : c.policies()) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("recipe", p.recipe());
        r.put("engine", p.engine().key());
        r.put("num_speculative_tokens", p.numSpeculativeTokens());
        r.put("match", p.match());
        r.put("source", p.source().toString());
        p.speedupBaseline().ifPresent(b -> r.put("speedup_baseline", b));
        p.importedFrom()
            .ifPresent(
                f -> r.put("imported_from", Map.of("recipe", f.written(), "method", f.method())));
        recipes.add(r);
      }
      root.put("recipes", recipes);
      List<Object> baselines = new ArrayList<>();
      for (Policy p : c.baselines()) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("recipe", p.recipe());
        b.put("engine", p.engine().key());
        b.put("match", p.match());
        baselines.add(b);
      }
      root.put("baselines", baselines);
      root.put("warnings", warnings(c));
    } catch (InvalidInputException e) {
      root.put("valid", false);
      List<Object> errors = new ArrayList<>();
      for (Problem p : e.problems()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", p.location().file());
        m.put("line", p.location().line());
        m.put("column", p.location().column());
        m.put("key", p.path());
        m.put("message", p.message());
        errors.add(m);
      }
      root.put("errors", errors);
      code = ExitCodes.INVALID_INPUT;
    }
    out.println(EvaluationJson.MAPPER.writeValueAsString(root));
    out.flush();
    return code;
  }
}
