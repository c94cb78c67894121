package dev.specwatch.digest;

import dev.specwatch.alerting.Transition;
import dev.specwatch.detect.Percentiles;
import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.QueryResult;
import dev.specwatch.prometheus.Sample;
import dev.specwatch.prometheus.Series;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.signals.QueryScope;
import dev.specwatch.signals.RecipeSnapshot;
import dev.specwatch.signals.Signal;
import dev.specwatch.signals.SloStatus;
import dev.specwatch.signals.VllmProfile;
import java.net.URI;
import java.net.URLEncoder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Computes a {@link Digest} from Prometheus (counter increases over the week and its days, hourly
 * ratios for percentiles) and the transition history. One recipe at a time: a digest runs once a
 * week, so clarity wins over batching here.
 */
public final class DigestCollector {
  /** A per-second signal over the week times the week: its total, or null where not exported. */
  private Double weekTotal(
      EngineProfile profile, Signal signal, QueryScope scope, Instant end, Duration week)
      throws PrometheusException {
    Optional<String> counter = profile.counterOf(signal);
    if (counter.isPresent()) {
      return value(increase(counter.get(), scope), end);
    }
    if (!profile.supported().contains(signal)) {
      return null;
    }
    Double rate = value(profile.query(signal, scope), end);
    return rate == null ? null : rate * week.toSeconds();
  }

  private final PrometheusApi api;
  private final Optional<URI> grafana;
  private final Clock clock;

  public DigestCollector(PrometheusApi api, Optional<URI> grafana) {
    this(api, grafana, Clock.systemUTC());
  }

  /**
   * @param clock a period that has not ended yet is reported up to now, and says so
   */
  public DigestCollector(PrometheusApi api, Optional<URI> grafana, Clock clock) {
    this.api = api;
    this.grafana = grafana;
    this.clock = clock;
  }

  public Digest collect(DigestPeriod period, List<Policy> policies, List<Transition> history)
      throws PrometheusException {
    return collect(period, policies, List.of(), history);
  }

  /**
   * @param baselines the deployments without speculation ({@code num_speculative_tokens: 0}) that
   *     recipes may name as {@code speedup_baseline}
   */
  public Digest collect(
      DigestPeriod period, List<Policy> policies, List<Policy> baselines, List<Transition> history)
      throws PrometheusException {
    Map<String, Policy> byName = new java.util.HashMap<>();
    policies.forEach(p -> byName.put(p.recipe(), p));
    baselines.forEach(p -> byName.put(p.recipe(), p));
    List<RecipeWeek> weeks = new ArrayList<>();
    for (Policy p : policies) {
      weeks.add(recipe(p, period, history, byName));
    }
    return new Digest(period, weeks);
  }

  private RecipeWeek recipe(
      Policy p, DigestPeriod period, List<Transition> history, Map<String, Policy> byName)
      throws PrometheusException {
    EngineProfile profile = EngineProfile.of(p.engine());
    Instant start = period.start();
    boolean unfinished = clock.instant().isBefore(period.end());
    Instant end = unfinished ? clock.instant() : period.end();
    Duration week = Duration.between(start, end);
    if (week.compareTo(Duration.ofMinutes(5)) < 0) {
      week = Duration.ofMinutes(5);
    }
    QueryScope scope = QueryScope.of(p, week);

    Double acceptance = value(profile.query(Signal.ACCEPTANCE_RATE, scope), end);
    Double meanLength = value(profile.query(Signal.MEAN_ACCEPTED_LENGTH, scope), end);
    Double previousAcceptance = value(profile.query(Signal.ACCEPTANCE_RATE, scope), start);
    Double previousMeanLength = value(profile.query(Signal.MEAN_ACCEPTED_LENGTH, scope), start);
    List<Double> positions = positions(p, profile, scope, end);
    List<Double> previousPositions = positions(p, profile, scope, start);
    // No series at all is not idleness: the match is wrong, or the target is down.
    Double draftsInWeek = value(profile.query(Signal.DRAFTS_IN_WINDOW, scope), end);
    boolean noData = draftsInWeek == null;
    // A counter's increase where the engine exports one, else the week's rate times its length.
    Double draftTokens = weekTotal(profile, Signal.DRAFT_TOKENS_PER_SECOND, scope, end, week);
    Double acceptedTokens = weekTotal(profile, Signal.ACCEPTED_TOKENS_PER_SECOND, scope, end, week);
    Double generation = weekTotal(profile, Signal.GENERATION_TOKENS_PER_SECOND, scope, end, week);
    Double wasted =
        draftTokens == null || acceptedTokens == null ? null : draftTokens - acceptedTokens;
    Double acceptedShare =
        generation == null || acceptedTokens == null || generation <= 0
            ? null
            : acceptedTokens / generation;

    List<RecipeWeek.Day> daily = new ArrayList<>();
    QueryScope day = QueryScope.of(p, Duration.ofDays(1));
    for (int d = 0; d < 7; d++) {
      Instant dayStart = period.dayBoundary(d);
      Instant dayEnd = period.dayBoundary(d + 1);
      if (!dayStart.isBefore(end)) {
        daily.add(new RecipeWeek.Day(period.monday().plusDays(d), null, null, false));
        continue;
      }
      // Today, while the week is in progress: the day so far (at least 5 minutes), marked partial.
      boolean partial = dayEnd.isAfter(end);
      QueryScope scope1 =
          partial ? QueryScope.of(p, max(Duration.between(dayStart, end), FIVE_MINUTES)) : day;
      Instant at = partial ? end : dayEnd;
      daily.add(
          new RecipeWeek.Day(
              period.monday().plusDays(d),
              value(profile.query(Signal.ACCEPTANCE_RATE, scope1), at),
              value(profile.query(Signal.MEAN_ACCEPTED_LENGTH, scope1), at),
              partial));
    }

    QueryScope hour = QueryScope.of(p, Duration.ofHours(1));
    Duration step = Duration.ofHours(1);
    double[] hourly =
        range(profile.query(Signal.ACCEPTANCE_RATE, hour), start.plus(step), end, step);
    // Idle: the share of the 5-minute slices the recipe's series existed in without a draft. A
    // slice before the series existed is not idle, so a recipe minutes old is not "100 % idle".
    QueryScope slice = QueryScope.of(p, FIVE_MINUTES);
    double[] drafts =
        range(
            profile.query(Signal.DRAFTS_IN_WINDOW, slice),
            start.plus(FIVE_MINUTES),
            end,
            FIVE_MINUTES);
    long busy = Arrays.stream(drafts).filter(v -> v > 0).count();
    Duration observed = FIVE_MINUTES.multipliedBy(drafts.length);
    Double idleShare =
        drafts.length == 0 || noData ? null : (drafts.length - busy) / (double) drafts.length;
    String kChanges = WeekKChanges.of(api, profile, slice, start, end, period.zone());

    Double change = relative(acceptance, previousAcceptance);
    Double lengthChange = relative(meanLength, previousMeanLength);
    boolean regression = change != null && change < -Digest.REGRESSION_DROP;

    int fired = 0;
    Duration total = Duration.ZERO;
    Duration longest = Duration.ZERO;
    Map<String, Instant> firingSince = new HashMap<>();
    for (Transition t : history) {
      if (!t.recipe().equals(p.recipe())) {
        continue;
      }
      if (t.kind() == Transition.Kind.FIRING) {
        fired++;
        firingSince.put(t.alertId(), t.at());
      } else {
        Instant since = firingSince.remove(t.alertId());
        Duration d =
            Duration.between(since == null ? max(t.since(), period.start()) : since, t.at());
        total = total.plus(d);
        longest = d.compareTo(longest) > 0 ? d : longest;
      }
    }
    for (Instant since : firingSince.values()) { // still firing at the end of the week
      Duration d = Duration.between(since, period.end());
      total = total.plus(d);
      longest = d.compareTo(longest) > 0 ? d : longest;
    }
    Double sloCompliance = null;
    Double sloBudget = null;
    if (p.slo().isPresent()) {
      RecipeSnapshot snapshot =
          new Evaluator(api, Clock.systemUTC())
              .evaluate(List.of(p), Duration.ofMinutes(5), Optional.of(end))
              .recipes()
              .get(0);
      sloCompliance = snapshot.slo().map(SloStatus::compliance).orElse(null);
      sloBudget = snapshot.slo().map(SloStatus::budgetRemaining).orElse(null);
    }
    RecipeWeek.Speedup speedup = DigestSpeedup.measure(api, p, byName, period, start, end);
    DigestAdvice advice = DigestAdvice.of(p, positions, draftsInWeek, speedup);
    Integer recommendedK = advice.k();
    Double recommendedGain = advice.gain();
    String adviceBasis = advice.basis();
    return new RecipeWeek(
        p.recipe(),
        p.engine().key(),
        p.match().get("model_name"),
        acceptance,
        meanLength,
        positions,
        draftTokens,
        acceptedTokens,
        wasted,
        generation,
        acceptedShare,
        idleShare,
        daily,
        percentile(hourly, 0.10),
        percentile(hourly, 0.50),
        percentile(hourly, 0.90),
        previousAcceptance,
        previousMeanLength,
        change,
        lengthChange,
        regression,
        fired,
        total,
        longest,
        dashboard(p, period),
        sloCompliance,
        sloBudget,
        recommendedK,
        recommendedGain,
        adviceBasis,
        new RecipeWeek.Notes(
            p.numSpeculativeTokens(),
            previousPositions,
            noData,
            unfinished,
            speedup,
            withinWeekDrop(daily),
            observed,
            noData ? NoDataReason.of(api, p, week, end) : null,
            kChanges));
  }

  /**
   * The first day whose acceptance is more than {@link Digest#REGRESSION_DROP} below the mean of
   * the week's earlier days with traffic, in words; null when there is none. Flags a drop inside
   * the week even without a previous week to compare with.
   */
  static String withinWeekDrop(List<RecipeWeek.Day> days) {
    double sum = 0;
    int n = 0;
    String first = null;
    String last = null;
    for (RecipeWeek.Day d : days) {
      Double a = d.acceptanceRate();
      if (a == null) {
        continue;
      }
      String name = d.date().getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ROOT);
      if (n > 0) {
        double earlier = sum / n;
        if (a < earlier * (1 - Digest.REGRESSION_DROP)) {
          return String.format(
              Locale.ROOT,
              "%s: acceptance %.1f %%, %.0f %% below the %.1f %% of %s",
              name,
              a * 100,
              (1 - a / earlier) * 100,
              earlier * 100,
              first.equals(last) ? first : first + "–" + last);
        }
      }
      first = first == null ? name : first;
      last = name;
      sum += a;
      n++;
    }
    return null;
  }

  private String dashboard(Policy p, DigestPeriod period) {
    if (grafana.isEmpty()) {
      return null;
    }
    String base = grafana.get().toString().replaceAll("/+$", "");
    String model = p.match().get("model_name");
    return base
        + "/d/vllm-spec-decode/vllm-speculative-decoding?orgId=1"
        + (model == null
            ? ""
            : "&var-model_name="
                + URLEncoder.encode(model, java.nio.charset.StandardCharsets.UTF_8))
        + "&from="
        + period.start().toEpochMilli()
        + "&to="
        + period.end().toEpochMilli();
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static String increase(String metric, QueryScope scope) {
    return VllmProfile.sum(scope.groupBy(), "increase", metric, scope);
  }

  private List<Double> positions(Policy p, EngineProfile profile, QueryScope scope, Instant at)
      throws PrometheusException {
    Double[] out = new Double[p.numSpeculativeTokens()];
    if (profile.supported().contains(Signal.POSITION_ACCEPTANCE)) {
      for (Sample s :
          api.query(profile.query(Signal.POSITION_ACCEPTANCE, scope), Optional.of(at)).samples()) {
        String position = s.labels().getOrDefault("position", "");
        // A label that is not a small whole number is not a draft position.
        if (position.matches("[0-9]{1,3}")) {
          int i = Integer.parseInt(position);
          if (i < out.length && Double.isFinite(s.value())) {
            out[i] = s.value();
          }
        }
      }
    }
    return Arrays.asList(out);
  }

  private Double value(String promql, Instant at) throws PrometheusException {
    return value(api, promql, at);
  }

  /** The first sample of an instant query at {@code at}; null when none or not finite. */
  static Double value(PrometheusApi api, String promql, Instant at) throws PrometheusException {
    List<Sample> samples = api.query(promql, Optional.of(at)).samples();
    if (samples.isEmpty() || !Double.isFinite(samples.get(0).value())) {
      return null;
    }
    return samples.get(0).value();
  }

  /**
   * The first series of a range query, or none; none without asking when the range is empty (the
   * week's first hour has no whole hour yet: Prometheus rejects an end before the start).
   */
  private double[] range(String promql, Instant from, Instant to, Duration step)
      throws PrometheusException {
    if (from.isAfter(to)) {
      return new double[0];
    }
    QueryResult result = api.queryRange(promql, from, to, step);
    if (!(result instanceof QueryResult.Matrix m) || m.series().isEmpty()) {
      return new double[0];
    }
    return m.series().get(0).points().stream()
        .mapToDouble(Series.Point::value)
        .filter(Double::isFinite)
        .toArray();
  }

  static Double percentile(double[] values, double q) {
    return values.length == 0 ? null : Percentiles.of(values, q);
  }

  private static Double relative(Double now, Double before) {
    if (now == null || before == null || before == 0) {
      return null;
    }
    return (now - before) / before;
  }
}
