package dev.specwatch.cli;

import dev.specwatch.alerting.Replayer;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Series;
import dev.specwatch.recipes.PolicyWriter;
import dev.specwatch.recipes.Suggestion;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.QueryScope;
import dev.specwatch.signals.Signal;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "suggest",
    mixinStandardHelpOptions = true,
    description = {
      "Proposes a recipe's static thresholds from its own hourly history.",
      "Each line sits 10 % below the 5th percentile of the hours with drafts (acceptance rate,"
          + " mean accepted length, every measured position), replayed over the window to show"
          + " how many alerts it would have raised; printed as YAML, or written into the policy"
          + " with --write (other lines of the policy are kept)."
    })
final class SuggestCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Option(names = "--recipe", required = true, paramLabel = "NAME", description = "The recipe.")
  String recipe;

  @Option(
      names = "--window",
      paramLabel = "DURATION",
      defaultValue = "7d",
      description = "History to learn from (default: ${DEFAULT-VALUE}).")
  Duration window;

  @Option(
      names = "--time",
      paramLabel = "TIME",
      description =
          "End the window at this time instead of now (rounded down to the hour): RFC 3339"
              + " (2026-11-30T12:00:00Z) or Unix seconds.")
  Instant time;

  @Option(names = "--write", description = "Write the thresholds into the recipe's policy file.")
  boolean write;

  @Override
  public Integer call() throws PrometheusException, IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (window.compareTo(Duration.ofHours(1)) < 0) {
      throw new UsageException("--window must be at least 1h");
    }
    SpecwatchConfig c = config.load();
    Policy policy = Recipes.find(c, recipe);
    PrometheusClient prometheus = new PrometheusClient(c.prometheus());
    Instant to = (time == null ? Instant.now() : time).truncatedTo(ChronoUnit.HOURS);
    Instant from = to.minus(window).plus(Duration.ofHours(1));
    Suggestion.Proposal p =
        proposal(
            prometheus,
            EngineProfile.of(policy.engine()),
            QueryScope.of(policy, Duration.ofHours(1)),
            from,
            to);
    String span = from + " .. " + to + " (" + Durations.format(window) + ")";
    if (!p.enough()) {
      out.printf(
          "%s: not enough data to suggest thresholds: %d hour(s) with drafts in %s; need %d."
              + " Keep the learned change detection meanwhile, or try a longer --window.%n",
          recipe, p.hours(), span, Suggestion.MIN_HOURS);
      out.flush();
      return ExitCodes.OK;
    }
    Policy suggested = policy.withThresholds(thresholds(p, policy));
    Replayer.Result replay =
        new Replayer(prometheus, c.alerting())
            .replay(List.of(suggested), c.evaluation().window(), from, to, Duration.ofMinutes(1));
    // The count under the lines is theirs alone; the policy's other rules (regression, change, …)
    // are kept as they are and counted apart, so one does not pass for the other.
    Map<Boolean, Long> firedBySuggested =
        replay.transitions().stream()
            .filter(t -> t.kind() == Transition.Kind.FIRING && recipe.equals(t.recipe()))
            .collect(
                java.util.stream.Collectors.partitioningBy(
                    t -> SUGGESTED_RULES.contains(t.rule()),
                    java.util.stream.Collectors.counting()));
    long fired = firedBySuggested.get(true);
    long firedOther = firedBySuggested.get(false);
    List<String> otherRules = new ArrayList<>();
    policy.thresholds().regression().ifPresent(r -> otherRules.add("regression"));
    policy.thresholds().throughput().ifPresent(r -> otherRules.add("throughput"));
    policy.thresholds().change().ifPresent(r -> otherRules.add("change"));
    policy
        .thresholds()
        .ceilings()
        .acceptanceRate()
        .ifPresent(r -> otherRules.add("acceptance_rate_above"));
    policy
        .thresholds()
        .ceilings()
        .meanAcceptedLength()
        .ifPresent(r -> otherRules.add("mean_accepted_length_above"));
    String yaml = Suggestion.yaml(p, policy.thresholds().ceilings());
    out.printf("# %s: from %d hours with drafts in %s%n", recipe, p.hours(), span);
    out.printf(
        Locale.ROOT,
        "#   acceptance_rate p5 %.3f, p10 %.3f, median %.3f%n",
        p.acceptance().p5(),
        p.acceptance().p10(),
        p.acceptance().median());
    if (p.meanAcceptedLength() != null) {
      out.printf(
          Locale.ROOT,
          "#   mean_accepted_length p5 %.3f, median %.3f%n",
          p.meanAcceptedLength().p5(),
          p.meanAcceptedLength().median());
    }
    out.printf(
        "#   replayed over the window (1m steps, %s window, for %s): %d alert(s) would have fired%n",
        Durations.format(c.evaluation().window()), Durations.format(policy.forDuration()), fired);
    if (!otherRules.isEmpty()) {
      out.printf(
          "#   the policy's other rules, kept as they are (%s): %d alert(s) over the same window%n",
          String.join(", ", otherRules), firedOther);
    }
    out.print(yaml);
    if (write) {
      Path file = Path.of(policy.source().file());
      String before = Files.readString(file, StandardCharsets.UTF_8);
      String after;
      try {
        after = PolicyWriter.withThresholds(before, yaml);
      } catch (IllegalArgumentException e) {
        err.println("specwatch policies suggest: " + file + ": " + e.getMessage());
        return ExitCodes.INVALID_INPUT;
      }
      Files.writeString(file, after, StandardCharsets.UTF_8);
      out.printf("wrote the thresholds into %s%n", file);
    }
    out.flush();
    return ExitCodes.OK;
  }

  /**
   * The proposal from the hourly values of a recipe's acceptance, accepted length and positions
   * between {@code from} and {@code to} ({@code hourly}: the recipe's scope over one hour).
   */
  static Suggestion.Proposal proposal(
      PrometheusClient prometheus,
      EngineProfile profile,
      QueryScope hourly,
      Instant from,
      Instant to)
      throws PrometheusException {
    List<Double> acceptance =
        values(prometheus, profile.query(Signal.ACCEPTANCE_RATE, hourly), from, to);
    List<Double> length =
        values(prometheus, profile.query(Signal.MEAN_ACCEPTED_LENGTH, hourly), from, to);
    Map<Integer, List<Double>> positions = new TreeMap<>();
    if (profile.supported().contains(Signal.POSITION_ACCEPTANCE)) {
      for (Series s :
          prometheus
              .queryRange(
                  profile.query(Signal.POSITION_ACCEPTANCE, hourly), from, to, Duration.ofHours(1))
              .series()) {
        String position = s.labels().get("position");
        if (position != null && position.matches("\\d+")) {
          positions.put(
              Integer.parseInt(position), s.points().stream().map(Series.Point::value).toList());
        }
      }
    }
    return Suggestion.propose(acceptance, length, positions);
  }

  /** The rules whose lines suggest proposes. */
  private static final Set<String> SUGGESTED_RULES =
      Set.of("acceptance_rate", "mean_accepted_length", "position_acceptance");

  static Policy.Thresholds thresholds(Suggestion.Proposal p, Policy policy) {
    Policy.Thresholds old = policy.thresholds();
    Map<Integer, Threshold> positions = new TreeMap<>();
    p.positions().forEach((i, l) -> positions.put(i, Threshold.below(l.below())));
    Suggestion.Line a = p.acceptance();
    return new Policy.Thresholds(
        Optional.of(
            new Threshold(
                a.below(),
                a.clearAbove() == null ? OptionalDouble.empty() : OptionalDouble.of(a.clearAbove()),
                Optional.empty())),
        Optional.ofNullable(p.meanAcceptedLength()).map(l -> Threshold.below(l.below())),
        new TreeMap<>(positions),
        old.regression(),
        old.throughput(),
        old.change(),
        // Every rule the policy has is replayed, the speed-up rule and the ceilings too.
        old.speedup(),
        old.ceilings());
  }

  /** The hourly values of a single-series query (NaN where an hour had no drafts). */
  private static List<Double> values(PrometheusClient api, String promql, Instant from, Instant to)
      throws PrometheusException {
    List<Double> out = new ArrayList<>();
    for (Series s : api.queryRange(promql, from, to, Duration.ofHours(1)).series()) {
      s.points().forEach(pt -> out.add(pt.value()));
    }
    return out;
  }
}
