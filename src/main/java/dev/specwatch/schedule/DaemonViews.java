package dev.specwatch.schedule;

import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Transition;
import dev.specwatch.backend.StateBackend;
import dev.specwatch.ha.ClusterView;
import dev.specwatch.model.Policy;
import dev.specwatch.notify.Silencer;
import dev.specwatch.server.RecipeHistory;
import dev.specwatch.server.SpecwatchMetrics;
import dev.specwatch.server.StatusServer;
import dev.specwatch.server.StatusViews;
import dev.specwatch.signals.Evaluation;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the status server and Slack's buttons see of the running daemon: views over its current
 * wiring, its state backend and its own metrics, read from memory or the backend, never waiting on
 * an evaluation. The daemon builds one at start; a reload changes the wiring it reads.
 */
final class DaemonViews implements StatusServer.Source, Silencer {
  private final Supplier<Daemon.Wiring> wiring;
  private final Supplier<List<String>> reload;
  private final StateBackend state;
  private final Shards shards;
  private final Readiness readiness;
  private final SpecwatchMetrics metrics;
  private final NoDataLog noDataLog;
  private final Clock clock;
  private final Sparklines sparklines = new Sparklines();
  private final RecipeHistoryLoader histories = new RecipeHistoryLoader(new RecipeHistoryCache());

  DaemonViews(
      Supplier<Daemon.Wiring> wiring,
      Supplier<List<String>> reload,
      Shards shards,
      Readiness readiness,
      SpecwatchMetrics metrics,
      NoDataLog noDataLog,
      Clock clock) {
    this.wiring = wiring;
    this.reload = reload;
    this.state = shards.backend();
    this.shards = shards;
    this.readiness = readiness;
    this.metrics = metrics;
    this.noDataLog = noDataLog;
    this.clock = clock;
  }

  @Override
  public Optional<String> stalled() {
    return readiness.stalled();
  }

  @Override
  public boolean ready() {
    return readiness.ready();
  }

  @Override
  public String notReadyReason() {
    return readiness.notReadyReason();
  }

  @Override
  public String beforeFirstEvaluation() {
    return readiness.beforeFirstEvaluation();
  }

  @Override
  public List<String> reload() {
    return reload.get();
  }

  @Override
  public Optional<String> noDataHint(String recipe) {
    return noDataLog.hint(recipe);
  }

  @Override
  public List<Policy> policies() {
    return wiring.get().config().recipes();
  }

  @Override
  public List<Silence> silences() throws IOException {
    return state.silences().load();
  }

  @Override
  public Silence addSilence(
      String recipe, Optional<String> rule, Duration duration, String comment, String author)
      throws IOException {
    return SilenceActions.add(
        state.silences(), policies(), clock, recipe, rule, duration, comment, author);
  }

  @Override
  public boolean expireSilence(String id) throws IOException {
    return SilenceActions.expire(state.silences(), clock, id);
  }

  @Override
  public List<Transition> history(Instant from) throws IOException {
    return state.history().between(from, clock.instant().plusSeconds(1));
  }

  @Override
  public List<Double> sparkline(String recipe) {
    return sparkline(recipe, lastEvaluation().orElse(null));
  }

  @Override
  public List<Double> sparkline(String recipe, Evaluation last) {
    return sparklines.get(recipe, wiring.get(), last);
  }

  @Override
  public RecipeHistory recipeHistory(String recipe, Duration span) {
    return histories.get(recipe, span, wiring.get(), clock.instant());
  }

  @Override
  public Optional<URI> grafana() {
    return wiring.get().config().grafanaUrl();
  }

  @Override
  public StatusViews.Config config() {
    return StatusViews.config(
        wiring.get().config(), Daemon.class.getPackage().getImplementationVersion());
  }

  @Override
  public StatusViews.Status status() {
    Evaluation e = lastEvaluation().orElse(null);
    boolean ready = ready();
    return new StatusViews.Status(
        ready,
        ready ? null : notReadyReason(),
        StatusViews.stateDir(state.health()),
        e == null ? null : e.evaluatedAt().toString(),
        shards.lastOutboxDepth(),
        alertState().queued().size(),
        config(),
        metrics.notifierHealth());
  }

  @Override
  public Optional<Evaluation> lastEvaluation() {
    return shards.evaluation();
  }

  @Override
  public AlertState alertState() {
    return shards.alertState(wiring.get().shards());
  }

  @Override
  public Optional<ClusterView> cluster() throws IOException {
    return state.view();
  }

  @Override
  public String metrics() throws IOException {
    // From memory: a scrape never waits on the state store (it is read in the cycle).
    return metrics.scrape(shards.lastOutboxDepth(), state.health());
  }
}
