package dev.specwatch.signals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code discover} makes of one model's series on one engine, as that engine's profile reads
 * them ({@link EngineProfile#discovered}): the release shape, k where the series show it, and what
 * specwatch cannot judge of it and why.
 *
 * @param shape the release shape, e.g. {@code per-position} or {@code gauges-only (approximate)}
 * @param k empty where the series do not show it
 * @param kSource how k was read, or why it could not be
 * @param speculative whether the series say speculative decoding is on
 * @param positions whether acceptance by position can be judged
 * @param running whether the engine's running-requests gauge is exported
 * @param missing what cannot be judged, and why (the signal's key first)
 */
public record Discovered(
    String shape,
    Optional<Integer> k,
    String kSource,
    boolean speculative,
    boolean positions,
    boolean running,
    List<String> missing) {

  /**
   * k as the number of positions a per-position counter has series for, by {@code (job,
   * model_name)}: for {@link EngineProfile#discoveryFigures()}.
   */
  public static String positionCount(String metric, String positionLabel) {
    return "count by (job, model_name) (group by (job, model_name, "
        + positionLabel
        + ") ("
        + metric
        + "))";
  }

  /** {@code k} read from the figure of that name, or empty. */
  static Optional<Integer> k(Series s) {
    return s.figure("k").map(Double::intValue);
  }

  /**
   * The series names present for one {@code (job, model_name)} and the engine's {@link
   * EngineProfile#discoveryFigures() figures} for it, by the figure's name (absent where the
   * figure's query returned nothing for the pair).
   */
  public record Series(Set<String> present, Map<String, Double> figures) {
    public boolean has(String metric) {
      return present.contains(metric);
    }

    public Optional<Double> figure(String name) {
      return Optional.ofNullable(figures.get(name));
    }
  }
}
