package dev.specwatch.cli;

import dev.specwatch.model.Engine;
import dev.specwatch.model.LabelMatcher;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.recipes.PolicyWriter;
import dev.specwatch.recipes.Suggestion;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.EvaluationJson;
import dev.specwatch.signals.QueryScope;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "discover",
    mixinStandardHelpOptions = true,
    description = {
      "Lists the models Prometheus has: engine, release shape, k, traffic, signals.",
      "Reads the series names (vLLM, SGLang, TensorRT-LLM; docs/ENGINES.md), not guesses: for"
          + " each job and model_name, which engine serves it, in which release shape, with which"
          + " k where the series show it, its generation tokens/s, what specwatch can judge and"
          + " what it cannot. --write writes one policy per model with speculative decoding and"
          + " a known k, with thresholds from `policies suggest` where there is a day of history."
    })
final class DiscoverCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConfigOption config;
  @Mixin OutputOption output;

  @Option(
      names = "--write",
      paramLabel = "DIR",
      description = "Write a policy per model into DIR (files that exist are left as they are).")
  Path write;

  @Option(
      names = "--time",
      paramLabel = "TIME",
      description = "Look at this time instead of now: RFC 3339 or Unix seconds.")
  Instant time;

  @Override
  public Integer call() throws PrometheusException, IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (write != null) {
      // Made before the config is read, so that a config whose policies directory is the one
      // being written loads on the first run.
      Files.createDirectories(write);
    }
    SpecwatchConfig c = config.load();
    PrometheusClient prometheus = new PrometheusClient(c.prometheus());
    List<Discovery.Found> models = new Discovery(prometheus, Optional.ofNullable(time)).find();
    List<String> written = write == null ? List.of() : write(prometheus, models);
    if (output.json()) {
      List<Object> list = new ArrayList<>();
      for (Discovery.Found f : models) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("model_name", f.modelName());
        m.put("job", f.job());
        m.put("engine", f.engine().key());
        m.put("shape", f.shape());
        m.put("speculative", f.speculative());
        m.put("k", f.k().orElse(null));
        m.put("k_source", f.kSource());
        m.put("generation_tokens_per_second", f.generationTokensPerSecond());
        m.put("signals", f.signals());
        m.put("missing", f.missing());
        m.put("warnings", KAgreement.warnings(f, c.policies()));
        list.add(m);
      }
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("models", list);
      if (write != null) {
        root.put("written", written);
      }
      out.println(EvaluationJson.MAPPER.writeValueAsString(root));
    } else {
      out.print(table(models, c.policies()));
      if (!written.isEmpty()) {
        out.println();
      }
      written.forEach(out::println);
    }
    out.flush();
    return ExitCodes.OK;
  }

  static String table(List<Discovery.Found> models, List<Policy> policies) {
    if (models.isEmpty()) {
      return "no served model found: Prometheus has no vllm:, sglang:, trtllm_ or llamacpp:"
          + " generation-token counter (is the engine scraped?)\n";
    }
    StringBuilder out = new StringBuilder();
    Map<String, Integer> byEngine = new java.util.TreeMap<>();
    models.forEach(f -> byEngine.merge(f.engine().key(), 1, Integer::sum));
    out.append(models.size()).append(" served model(s):");
    byEngine.forEach((engine, n) -> out.append(' ').append(engine).append(' ').append(n));
    out.append('\n');
    for (Discovery.Found f : models) {
      out.append('\n')
          .append(name(f))
          .append("  (job ")
          .append(f.job())
          .append(")\n  engine ")
          .append(f.engine().key())
          .append(", ")
          .append(f.shape())
          .append(f.k().map(k -> ", k=" + k).orElse(""))
          .append(
              f.generationTokensPerSecond() == null
                  ? ", no traffic in the last 5m"
                  : String.format(
                      Locale.ROOT, ", %.1f generation tokens/s", f.generationTokensPerSecond()))
          .append('\n');
      out.append("  can judge: ").append(String.join(", ", f.signals())).append('\n');
      for (String m : f.missing()) {
        out.append("  missing: ").append(m).append('\n');
      }
      for (String w : KAgreement.warnings(f, policies)) {
        out.append("  warning: ").append(w).append('\n');
      }
    }
    return out.toString();
  }

  /** The model's name, or its job's where the engine labels none (llama.cpp). */
  private static String name(Discovery.Found f) {
    return f.modelName().isEmpty() ? f.job() : f.modelName();
  }

  /** One policy per speculative model with a known k; what was done, a line each. */
  private List<String> write(PrometheusClient prometheus, List<Discovery.Found> models)
      throws IOException, PrometheusException {
    Files.createDirectories(write);
    List<String> done = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Instant to = (time == null ? Instant.now() : time).truncatedTo(ChronoUnit.HOURS);
    Instant from = to.minus(Duration.ofDays(7)).plus(Duration.ofHours(1));
    for (Discovery.Found f : models) {
      if (!f.speculative()) {
        done.add("not written " + name(f) + ": no speculative decoding to watch");
        continue;
      }
      if (f.k().isEmpty()) {
        done.add("not written " + name(f) + ": k is " + f.kSource());
        continue;
      }
      String recipe = slug(name(f));
      if (!names.add(recipe)) {
        recipe = slug(f.modelName() + "-" + f.job());
        names.add(recipe);
      }
      Path file = write.resolve(recipe + ".yaml");
      if (Files.exists(file)) {
        done.add("left " + file + " as it is (it exists)");
        continue;
      }
      // As the written policy matches: by job alone where the model has no name of its own
      // (llama.cpp labels none, trtllm-serve writes "undefined").
      List<LabelMatcher> matchers = new ArrayList<>(List.of(LabelMatcher.equal("job", f.job())));
      if (!f.modelName().isEmpty()) {
        matchers.add(LabelMatcher.equal("model_name", f.modelName()));
      }
      QueryScope hourly =
          new QueryScope(List.of("job", "model_name"), matchers, Duration.ofHours(1))
              .withK(f.k().get());
      Suggestion.Proposal p =
          SuggestCommand.proposal(prometheus, EngineProfile.of(f.engine()), hourly, from, to);
      Optional<Double> observed =
          p.enough()
              ? Optional.<Double>empty()
              : observedAcceptance(prometheus, f, hourly, time == null ? Instant.now() : time);
      String text = policy(f, recipe, p, observed);
      if (p.enough()) {
        text = PolicyWriter.withThresholds(text, Suggestion.yaml(p));
      } else if (observed.isPresent()) {
        text = PolicyWriter.withThresholds(text, starter(observed.get()));
      }
      Files.writeString(file, text, StandardCharsets.UTF_8);
      done.add(
          "wrote "
              + file
              + (p.enough()
                  ? ": thresholds from " + p.hours() + " hours of history"
                  : observed.isPresent()
                      ? String.format(
                          Locale.ROOT,
                          ": a starter threshold (acceptance below %.2f, %d %% under the %.3f"
                              + " observed in the last hour) until `specwatch policies suggest"
                              + " --recipe %s --write` fits one to a day of traffic",
                          starterBelow(observed.get()),
                          STARTER_MARGIN_PERCENT,
                          observed.get(),
                          recipe)
                      : ": no thresholds yet (no drafts in the last hour to start from); run"
                          + " `specwatch policies suggest --recipe "
                          + recipe
                          + " --write` after a day of traffic"));
    }
    return done;
  }

  /**
   * A starter line sits this share of the acceptance observed in the last hour: conservative (it
   * pages on a gross regression, not on the hour-to-hour wander a day of history would measure).
   */
  static final double STARTER_SHARE = 0.75;

  /** How far under the observed acceptance the starter line sits, in percent (25). */
  private static final long STARTER_MARGIN_PERCENT = Math.round((1 - STARTER_SHARE) * 100);

  static double starterBelow(double observed) {
    return Math.floor(observed * STARTER_SHARE * 100) / 100;
  }

  /** thresholds: the starter line, clearing 0.05 above it (capped below what was observed). */
  static String starter(double observed) {
    double below = starterBelow(observed);
    double clear = Math.min(below + 0.05, Math.floor(observed * 100) / 100);
    return String.format(
        Locale.ROOT,
        "thresholds:\n  acceptance_rate: {below: %.2f, clear_above: %.2f}\n",
        below,
        Math.max(clear, below + 0.01));
  }

  /** The model's acceptance over the last hour (what there is of it), or empty without drafts. */
  private static Optional<Double> observedAcceptance(
      PrometheusClient prometheus, Discovery.Found f, QueryScope hourly, Instant at)
      throws PrometheusException {
    EngineProfile profile = EngineProfile.of(f.engine());
    if (!profile.supported().contains(dev.specwatch.signals.Signal.ACCEPTANCE_RATE)) {
      return Optional.empty();
    }
    return prometheus
        .query(profile.query(dev.specwatch.signals.Signal.ACCEPTANCE_RATE, hourly), Optional.of(at))
        .samples()
        .stream()
        .map(dev.specwatch.prometheus.Sample::value)
        .filter(v -> Double.isFinite(v) && v > 0)
        .findFirst();
  }

  private static String policy(
      Discovery.Found f, String recipe, Suggestion.Proposal p, Optional<Double> observed) {
    StringBuilder y = new StringBuilder();
    y.append("# Found by `specwatch discover`: ")
        .append(f.engine().key())
        .append(", ")
        .append(f.shape())
        .append("; k from ")
        .append(f.kSource())
        .append(".\n");
    if (!p.enough() && observed.isPresent()) {
      y.append(
          String.format(
              Locale.ROOT,
              "# A starter threshold: acceptance was %.3f over the last hour, and the line sits %d %%"
                  + " under it\n# (%.2f), so this policy pages on a gross regression from its first"
                  + " hour. Too little\n# history (%d hour(s) with drafts, %d needed) to fit"
                  + " one: `specwatch policies suggest\n# --recipe %s --write` replaces it after a"
                  + " day of traffic.\n",
              observed.get(),
              STARTER_MARGIN_PERCENT,
              starterBelow(observed.get()),
              p.hours(),
              Suggestion.MIN_HOURS,
              recipe));
    } else if (!p.enough()) {
      y.append("# No thresholds yet: no drafts in the last hour to start from. This policy")
          .append(" watches and never alerts\n# until `specwatch policies suggest --recipe ")
          .append(recipe)
          .append(" --write` adds them.\n");
    }
    y.append("recipe: ").append(recipe).append('\n');
    if (f.engine() != Engine.VLLM) {
      y.append("engine: ").append(f.engine().key()).append('\n');
    }
    y.append("match:\n  job: ").append(quoted(f.job())).append('\n');
    // llama.cpp labels nothing: its server is its model, selected by job alone.
    if (!f.modelName().isEmpty()) {
      y.append("  model_name: ").append(quoted(f.modelName())).append('\n');
    }
    y.append("num_speculative_tokens: ").append(f.k().orElseThrow()).append('\n');
    return y.toString();
  }

  /** A YAML double-quoted scalar (JSON's escapes are YAML's). */
  private static String quoted(String s) {
    try {
      return EvaluationJson.MAPPER.writer().writeValueAsString(s);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A recipe name from a model name: lower case, [a-z0-9._-], one dash for each run of others. */
  /** The longest recipe name (and file name, with .yaml) a model name becomes. */
  static final int MAX_SLUG = 100;

  static String slug(String model) {
    String s = model.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]+", "-");
    s = s.replaceAll("-{2,}", "-").replaceAll("^[-.]+|-+$", "");
    if (s.length() > MAX_SLUG) {
      // A file name has at most 255 bytes: a long model name is cut, and its hash keeps two
      // long names that share a beginning apart (before, the write failed half-way, exit 1).
      String hash =
          String.format(
              Locale.ROOT,
              "%08x",
              java.nio.ByteBuffer.wrap(
                      sha256(model.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                  .getInt());
      s = s.substring(0, MAX_SLUG - hash.length() - 1).replaceAll("[-.]+$", "") + "-" + hash;
    }
    return s.isEmpty() ? "model" : s;
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
