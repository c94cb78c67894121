package dev.specwatch.signals;

import java.util.List;
import java.util.Optional;

/**
 * One recipe at one evaluation: its state, signals and breached thresholds.
 *
 * @param baseline present for recipes with a regression or throughput rule
 * @param error what went wrong, for {@link RecipeState#ERROR}; never contains credentials
 * @param increments the last evaluation step's counter increases, for recipes whose rules decide on
 *     them (change detection, {@code detection: sequential})
 * @param form how the figures were obtained from what the servers export (exact or approximate,
 *     positions exported or why not); empty where it is not known (no data, an error)
 * @param coveredSeconds present when the window is not yet full: the data began inside it (a server
 *     scraped for two minutes of a five-minute window), so its rates read low until it fills; the
 *     seconds the data covers
 */
public record RecipeSnapshot(
    String recipe,
    String engine,
    RecipeState state,
    SignalValues signals,
    List<Breach> breaches,
    Optional<Baseline> baseline,
    Optional<String> error,
    Optional<SloStatus> slo,
    Optional<Increments> increments,
    Optional<SignalForm> form,
    Optional<Long> coveredSeconds) {
  public RecipeSnapshot {
    breaches = List.copyOf(breaches);
    // an evaluation stored by an older replica (the shared database) has no form
    form = form == null ? Optional.empty() : form;
    coveredSeconds = coveredSeconds == null ? Optional.empty() : coveredSeconds;
  }

  public RecipeSnapshot(
      String recipe,
      String engine,
      RecipeState state,
      SignalValues signals,
      List<Breach> breaches,
      Optional<Baseline> baseline,
      Optional<String> error,
      Optional<SloStatus> slo,
      Optional<Increments> increments,
      Optional<SignalForm> form) {
    this(
        recipe,
        engine,
        state,
        signals,
        breaches,
        baseline,
        error,
        slo,
        increments,
        form,
        Optional.empty());
  }

  public RecipeSnapshot(
      String recipe,
      String engine,
      RecipeState state,
      SignalValues signals,
      List<Breach> breaches,
      Optional<Baseline> baseline,
      Optional<String> error) {
    this(
        recipe,
        engine,
        state,
        signals,
        breaches,
        baseline,
        error,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  public RecipeSnapshot withSlo(SloStatus status) {
    return new RecipeSnapshot(
        recipe,
        engine,
        state,
        signals,
        breaches,
        baseline,
        error,
        Optional.of(status),
        increments,
        form,
        coveredSeconds);
  }

  public RecipeSnapshot withIncrements(Increments step) {
    return new RecipeSnapshot(
        recipe,
        engine,
        state,
        signals,
        breaches,
        baseline,
        error,
        slo,
        Optional.of(step),
        form,
        coveredSeconds);
  }

  public RecipeSnapshot withForm(SignalForm how) {
    return new RecipeSnapshot(
        recipe,
        engine,
        state,
        signals,
        breaches,
        baseline,
        error,
        slo,
        increments,
        Optional.of(how),
        coveredSeconds);
  }

  /** This snapshot with the window not yet full: the data covers {@code seconds} of it. */
  public RecipeSnapshot withCovered(long seconds) {
    return new RecipeSnapshot(
        recipe,
        engine,
        state,
        signals,
        breaches,
        baseline,
        error,
        slo,
        increments,
        form,
        Optional.of(seconds));
  }
}
