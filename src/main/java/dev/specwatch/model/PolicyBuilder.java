package dev.specwatch.model;

import static dev.specwatch.model.Policy.DEFAULT_FOR;
import static dev.specwatch.model.Policy.DEFAULT_KEEP_FIRING_FOR;
import static dev.specwatch.model.Policy.DEFAULT_MIN_DRAFTS;

import dev.specwatch.model.Policy.Ceilings;
import dev.specwatch.model.Policy.Change;
import dev.specwatch.model.Policy.Detection;
import dev.specwatch.model.Policy.Maintenance;
import dev.specwatch.model.Policy.Notify;
import dev.specwatch.model.Policy.Regression;
import dev.specwatch.model.Policy.Slo;
import dev.specwatch.model.Policy.Thresholds;
import dev.specwatch.model.Policy.Throughput;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/** Builds a {@link Policy}; every default is the one the config loader applies. */
public final class PolicyBuilder {
  private final String recipe;
  private final Map<String, String> match;
  private final int k;
  private Engine engine = Engine.VLLM;
  private long minDrafts = DEFAULT_MIN_DRAFTS;
  private Duration forDuration = DEFAULT_FOR;
  private Duration keepFiringFor = DEFAULT_KEEP_FIRING_FOR;
  private Optional<Threshold> acceptanceRate = Optional.empty();
  private Optional<Threshold> meanAcceptedLength = Optional.empty();
  private Optional<Threshold> acceptanceRateAbove = Optional.empty();
  private Optional<Threshold> meanAcceptedLengthAbove = Optional.empty();
  private final SortedMap<Integer, Threshold> positions = new TreeMap<>();
  private Optional<Regression> regression = Optional.empty();
  private Optional<Throughput> throughput = Optional.empty();
  private final Notify notify = Notify.defaults();
  private List<Maintenance> maintenance = List.of();
  private Optional<Slo> slo = Optional.empty();
  private Optional<Change> change = Optional.empty();
  private Detection detection = Detection.defaults();

  public PolicyBuilder change(Change change) {
    this.change = Optional.of(change);
    return this;
  }

  public PolicyBuilder detection(Detection detection) {
    this.detection = detection;
    return this;
  }

  public PolicyBuilder slo(Slo slo) {
    this.slo = Optional.of(slo);
    return this;
  }

  PolicyBuilder(String recipe, Map<String, String> match, int k) {
    this.recipe = recipe;
    this.match = match;
    this.k = k;
  }

  public PolicyBuilder engine(Engine engine) {
    this.engine = engine;
    return this;
  }

  public PolicyBuilder minDrafts(long minDrafts) {
    this.minDrafts = minDrafts;
    return this;
  }

  public PolicyBuilder forDuration(Duration forDuration) {
    this.forDuration = forDuration;
    return this;
  }

  public PolicyBuilder keepFiringFor(Duration keepFiringFor) {
    this.keepFiringFor = keepFiringFor;
    return this;
  }

  /** A floor, or with {@link Threshold#above} a ceiling; a recipe may have one of each. */
  public PolicyBuilder acceptanceRate(Threshold threshold) {
    if (threshold.floor()) {
      this.acceptanceRate = Optional.of(threshold);
    } else {
      this.acceptanceRateAbove = Optional.of(threshold);
    }
    return this;
  }

  /** A floor, or with {@link Threshold#above} a ceiling; a recipe may have one of each. */
  public PolicyBuilder meanAcceptedLength(Threshold threshold) {
    if (threshold.floor()) {
      this.meanAcceptedLength = Optional.of(threshold);
    } else {
      this.meanAcceptedLengthAbove = Optional.of(threshold);
    }
    return this;
  }

  public PolicyBuilder positionAcceptance(int position, Threshold threshold) {
    this.positions.put(position, threshold);
    return this;
  }

  public PolicyBuilder regression(Regression regression) {
    this.regression = Optional.of(regression);
    return this;
  }

  public PolicyBuilder throughput(Throughput throughput) {
    this.throughput = Optional.of(throughput);
    return this;
  }

  public PolicyBuilder maintenance(List<Maintenance> maintenance) {
    this.maintenance = maintenance;
    return this;
  }

  public Policy build() {
    return new Policy(
        recipe,
        engine,
        new TreeMap<>(match),
        k,
        minDrafts,
        forDuration,
        keepFiringFor,
        new Thresholds(
            acceptanceRate,
            meanAcceptedLength,
            positions,
            regression,
            throughput,
            change,
            Optional.empty(),
            new Ceilings(acceptanceRateAbove, meanAcceptedLengthAbove)),
        notify,
        Map.of(),
        Optional.empty(),
        maintenance,
        slo,
        detection,
        new Location("alerts/" + recipe + ".yaml", 1, 1),
        Optional.empty(),
        Optional.empty());
  }
}
