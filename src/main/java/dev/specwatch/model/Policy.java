package dev.specwatch.model;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One recipe (a model deployment with its speculative config) and what it is held to. Loaded from
 * {@code alerts/<recipe>.yaml}; docs/CONFIG.md documents every key.
 *
 * @param match equality matchers that select the recipe's series; their label names are how results
 *     are told apart, so two recipes with the same label names must differ in a value
 * @param numSpeculativeTokens k; 0 for a deployment without speculation, a baseline that {@code
 *     speedup_baseline} names (docs/SPEEDUP.md)
 * @param minDrafts fewer drafts in the window: low_traffic, no verdict
 * @param speedupBaseline the recipe whose per-request decode speed this one's is measured against
 */
public record Policy(
    String recipe,
    Engine engine,
    SortedMap<String, String> match,
    int numSpeculativeTokens,
    long minDrafts,
    Duration forDuration,
    Duration keepFiringFor,
    Thresholds thresholds,
    Notify notification,
    Map<String, String> labels,
    Optional<String> runbookUrl,
    List<Maintenance> maintenance,
    Optional<Slo> slo,
    Detection detection,
    Location source,
    Optional<ImportedFrom> importedFrom,
    Optional<String> speedupBaseline) {

  /**
   * The designed mean time between false alarms of the sequential tests (`thresholds.change` and
   * `detection: sequential`) where the policy does not say.
   */
  public static final Duration DEFAULT_FALSE_ALARM_INTERVAL = Duration.ofDays(30);

  /**
   * Where {@code specwatch policies import} took this policy from.
   *
   * @param recipe the recipe file, resolved against the policy's directory
   * @param written the path as written in the policy (relative to the policy's directory)
   * @param method the speculative method (mtp, eagle, ...)
   */
  public record ImportedFrom(java.nio.file.Path recipe, String written, String method) {}

  public static final long DEFAULT_MIN_DRAFTS = 100;

  /** Every rule name an alert can have (silences name them; docs/ALERTING.md). */
  public static final List<String> RULE_NAMES = RuleName.silenceable();

  public static final Duration DEFAULT_FOR = Duration.ofMinutes(5);
  public static final Duration DEFAULT_KEEP_FIRING_FOR = Duration.ofMinutes(5);

  public Policy {
    if (recipe == null || recipe.isBlank() || match.isEmpty() || numSpeculativeTokens < 0) {
      throw new IllegalArgumentException("recipe, match and num_speculative_tokens are required");
    }
    match = new TreeMap<>(match);
    labels = Map.copyOf(labels);
    maintenance = List.copyOf(maintenance);
  }

  /**
   * The measured speed-up at the load the recipe runs (docs/SPEEDUP.md) below {@code
   * threshold.below()}: measured against its {@code speedup_baseline} over the trailing {@code
   * over}, in the bucket of running requests it ran in lately.
   */
  public record Speedup(Threshold threshold, Duration over) {
    public static final Duration DEFAULT_OVER = Duration.ofHours(6);
  }

  /** Thresholds of one recipe; each is optional. Positions are 0-based draft positions. */
  public record Thresholds(
      Optional<Threshold> acceptanceRate,
      Optional<Threshold> meanAcceptedLength,
      SortedMap<Integer, Threshold> positionAcceptance,
      Optional<Regression> regression,
      Optional<Throughput> throughput,
      Optional<Change> change,
      Optional<Speedup> speedup,
      Ceilings ceilings) {
    public Thresholds {
      positionAcceptance = new TreeMap<>(positionAcceptance);
      speedup = speedup == null ? Optional.empty() : speedup;
      ceilings = ceilings == null ? Ceilings.none() : ceilings;
    }

    /** The acceptance rate's floor then its ceiling, those the policy sets. */
    public List<Threshold> acceptanceRateLines() {
      return lines(acceptanceRate, ceilings.acceptanceRate());
    }

    /** The mean accepted length's floor then its ceiling, those the policy sets. */
    public List<Threshold> meanAcceptedLengthLines() {
      return lines(meanAcceptedLength, ceilings.meanAcceptedLength());
    }

    private static List<Threshold> lines(Optional<Threshold> floor, Optional<Threshold> ceiling) {
      return java.util.stream.Stream.of(floor, ceiling).flatMap(Optional::stream).toList();
    }

    /** Without ceilings. */
    public Thresholds(
        Optional<Threshold> acceptanceRate,
        Optional<Threshold> meanAcceptedLength,
        SortedMap<Integer, Threshold> positionAcceptance,
        Optional<Regression> regression,
        Optional<Throughput> throughput,
        Optional<Change> change,
        Optional<Speedup> speedup) {
      this(
          acceptanceRate,
          meanAcceptedLength,
          positionAcceptance,
          regression,
          throughput,
          change,
          speedup,
          Ceilings.none());
    }

    /** Without a speed-up threshold. */
    public Thresholds(
        Optional<Threshold> acceptanceRate,
        Optional<Threshold> meanAcceptedLength,
        SortedMap<Integer, Threshold> positionAcceptance,
        Optional<Regression> regression,
        Optional<Throughput> throughput,
        Optional<Change> change) {
      this(
          acceptanceRate,
          meanAcceptedLength,
          positionAcceptance,
          regression,
          throughput,
          change,
          Optional.empty());
    }

    public static Thresholds none() {
      return new Thresholds(
          Optional.empty(),
          Optional.empty(),
          new TreeMap<>(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty());
    }
  }

  /**
   * Lines the value must stay under ({@code above:} in the same key as the floor): acceptance or
   * accepted length that is too high, e.g. a model stuck repeating itself so that every draft is
   * accepted (vllm issue #44487). Each is a {@link Threshold.Direction#ABOVE} threshold.
   */
  public record Ceilings(
      Optional<Threshold> acceptanceRate, Optional<Threshold> meanAcceptedLength) {
    public Ceilings {
      for (Optional<Threshold> t : List.of(acceptanceRate, meanAcceptedLength)) {
        if (t.isPresent() && t.get().floor()) {
          throw new IllegalArgumentException("a ceiling fires above its line");
        }
      }
    }

    public static Ceilings none() {
      return new Ceilings(Optional.empty(), Optional.empty());
    }
  }

  /**
   * The acceptance rate of the current window against the recipe's own baseline (the trailing
   * {@code baseline} before the current window). Fires when the relative drop exceeds {@code
   * maxRelativeDrop} and a one-sided z-test on the acceptance proportion, with the drafts in the
   * window as n, gives z &gt;= {@code minZ}, and the baseline saw at least {@code
   * minBaselineDrafts} drafts.
   */
  public record Regression(
      double maxRelativeDrop,
      Duration baseline,
      double minZ,
      long minBaselineDrafts,
      Optional<Severity> severity) {
    public static final Duration DEFAULT_BASELINE = Duration.ofDays(7);
    public static final double DEFAULT_MIN_Z = 3.0;
    public static final long DEFAULT_MIN_BASELINE_DRAFTS = 10_000;
  }

  /**
   * Learned change detection: the recipe's normal acceptance is learned from {@code learn} of its
   * history, and a sequential test on per-step counter increments fires on a sustained drop of at
   * least {@code minRelativeDrop}, with healthy traffic raising a false alarm no more often than
   * once per {@code falseAlarmInterval}. docs/DETECTION.md.
   */
  public record Change(
      double minRelativeDrop,
      Duration falseAlarmInterval,
      Duration learn,
      Optional<Severity> severity) {
    public static final Duration DEFAULT_LEARN = Duration.ofDays(7);

    public Change {
      if (!(minRelativeDrop > 0 && minRelativeDrop < 0.9)) {
        throw new IllegalArgumentException("min_relative_drop must be in (0, 0.9)");
      }
    }
  }

  /**
   * How threshold rules decide: over the rate window ({@code window}, Prometheus' way) or by a
   * sequential test on per-step counter increments ({@code sequential}), which fires once the
   * evidence that the value is below the threshold reaches the confidence of one false alarm per
   * {@code falseAlarmInterval}.
   */
  public record Detection(Mode mode, Duration falseAlarmInterval) {
    public enum Mode {
      WINDOW,
      SEQUENTIAL
    }

    public static Detection defaults() {
      return new Detection(Mode.WINDOW, DEFAULT_FALSE_ALARM_INTERVAL);
    }

    public boolean sequential() {
      return mode == Mode.SEQUENTIAL;
    }
  }

  /**
   * Generation tokens per second per running request against the baseline: catches a bad build
   * whose acceptance looks fine while throughput collapses.
   */
  public record Throughput(
      double maxRelativeDrop, Duration baseline, Optional<Severity> severity) {}

  /**
   * A service level objective on acceptance: in {@code objective} of the active {@code slice}s of
   * {@code period}, the acceptance rate is at least {@code acceptanceRate}. Idle slices don't
   * count.
   */
  public record Slo(double objective, double acceptanceRate, Duration slice, Duration period) {
    public static final Duration DEFAULT_SLICE = Duration.ofMinutes(5);
    public static final Duration DEFAULT_PERIOD = Duration.ofDays(28);

    public Slo {
      if (!(objective > 0 && objective < 1)) {
        throw new IllegalArgumentException("objective must be between 0 and 1");
      }
    }

    /** The error budget: the fraction of active slices allowed to miss the target. */
    public double budget() {
      return 1 - objective;
    }
  }

  /** Whether any rule decides on per-step increments (and so needs them queried). */
  public boolean usesIncrements() {
    return detection.sequential() || thresholds.change().isPresent();
  }

  /**
   * A planned window during which the recipe's notifications are silenced: one window, or a
   * recurring one (Alertmanager's {@code time_intervals}).
   */
  public sealed interface Maintenance {
    /** Whether notifications at {@code at} are silenced. */
    boolean covers(Instant at);

    String comment();

    /** When it holds, for {@code validate}: "01:00-03:30 monday-friday (Europe/Berlin)". */
    String describe();

    /** From {@code start} (inclusive) to {@code end} (exclusive). */
    record Window(Instant start, Instant end, String comment) implements Maintenance {
      @Override
      public boolean covers(Instant at) {
        return !at.isBefore(start) && at.isBefore(end);
      }

      @Override
      public String describe() {
        return "once, " + start + " to " + end;
      }
    }

    /** Every instant {@code when} holds, e.g. 01:00 to 03:30 Monday to Friday in Europe/Berlin. */
    record Recurring(TimeInterval when, String comment) implements Maintenance {
      @Override
      public boolean covers(Instant at) {
        return when.contains(at);
      }

      @Override
      public String describe() {
        return when.describe();
      }
    }
  }

  /** Where and how loudly this recipe's alerts are sent. */
  public record Notify(Optional<String> slackChannel, Severity severity) {
    public static final Severity DEFAULT_SEVERITY = Severity.WARNING;

    public static Notify defaults() {
      return new Notify(Optional.empty(), DEFAULT_SEVERITY);
    }
  }

  /** A policy with the documented defaults; for code and tests that build policies directly. */
  public static PolicyBuilder builder(String recipe, Map<String, String> match, int k) {
    return new PolicyBuilder(recipe, match, k);
  }

  /** The same policy with other thresholds ({@code policies suggest} replays them). */
  public Policy withThresholds(Thresholds other) {
    return new Policy(
        recipe,
        engine,
        match,
        numSpeculativeTokens,
        minDrafts,
        forDuration,
        keepFiringFor,
        other,
        notification,
        labels,
        runbookUrl,
        maintenance,
        slo,
        detection,
        source,
        importedFrom,
        speedupBaseline);
  }

  /** Whether the deployment speculates (k &ge; 1); without, it is only a speed-up baseline. */
  public boolean speculative() {
    return numSpeculativeTokens > 0;
  }

  /**
   * What is watched of a deployment without speculation, in the words {@code validate}, the web UI
   * and the API all use: it is evaluated for its throughput and running requests (charted, and the
   * measure a speed-up is taken against); it alerts only with {@code thresholds.throughput}.
   */
  public String plainRole() {
    return thresholds.throughput().isPresent()
        ? "no speculation: throughput watched, alerts on thresholds.throughput"
        : "no speculation: throughput shown, no alert rule (add thresholds.throughput to alert)";
  }

  public List<LabelMatcher> matchers() {
    return match.entrySet().stream()
        .map(e -> LabelMatcher.equal(e.getKey(), e.getValue()))
        .toList();
  }

  /** The label names that identify this recipe's series, sorted. */
  public List<String> matchLabelNames() {
    return List.copyOf(match.keySet());
  }
}
