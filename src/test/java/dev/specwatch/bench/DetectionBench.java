package dev.specwatch.bench;

import dev.specwatch.alerting.Replayer;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.QueryResult;
import dev.specwatch.prometheus.Series;
import dev.specwatch.testing.HistoryGenerator;
import dev.specwatch.testing.HistoryGenerator.Drop;
import dev.specwatch.testing.HistoryGenerator.Model;
import dev.specwatch.testing.HistoryGenerator.Profile;
import dev.specwatch.testing.LiveDetection;
import dev.specwatch.testing.PrometheusServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * `make detect-bench`: false alarms and detection delays of every detector on generated histories
 * (docs/DETECTION.md). Fourteen days per model, backfilled into a real Prometheus with promtool;
 * the first seven are learning history, the next six healthy (false alarms are counted there), then
 * a drop (or none). specwatch's detectors run through `replay` (the daemon's evaluator, learner and
 * engine); the static Prometheus rule a user would write, {@code AR(5m) < X for 10m}, is evaluated
 * by Prometheus itself as a range query.
 */
public final class DetectionBench {
  static final Duration SCRAPE = Duration.ofSeconds(30);

  /** The replay's step: 2 minutes (docs/DETECTION.md), or {@code -Dbench.step=30s}. */
  static final Duration STEP = duration("bench.step", Duration.ofMinutes(2));

  /**
   * The duration the system property {@code property} gives ({@code 30s}), else {@code otherwise}.
   */
  static Duration duration(String property, Duration otherwise) {
    String v = System.getProperty(property);
    return v == null ? otherwise : dev.specwatch.model.Durations.parse(v).orElseThrow();
  }

  static final Duration WINDOW = Duration.ofMinutes(5);
  static final double[] DROPS = {0.05, 0.10, 0.15, 0.30, 0.50};

  static final List<Profile> PROFILES =
      List.of(
          new Profile(
              "steady",
              40,
              0.2,
              false,
              0,
              0.65,
              0.02,
              0.005,
              0.008,
              Duration.ofMinutes(5),
              2,
              1,
              0,
              0,
              0),
          new Profile(
              "diurnal",
              30,
              0.7,
              true,
              2,
              0.60,
              0.06,
              0.015,
              0.02,
              Duration.ofMinutes(10),
              4,
              2,
              2,
              0,
              0),
          HistoryGenerator.thin("thin"));

  record Case(Model model, Profile profile, String drop, Instant dropAt) {}

  record Detector(String name, Function<Case, Policy> policy) {}

  public static void main(String[] args) throws Exception {
    long wallStart = System.nanoTime();
    Instant to = HistoryGenerator.lastTuesdayMidnight(Instant.now());
    Instant from = to.minus(Duration.ofDays(14));
    Instant evalFrom = from.plus(Duration.ofDays(7));
    // 14:00 UTC of the last full day: traffic everywhere (the diurnal profile idles at night).
    Instant dropAt =
        to.minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.DAYS).plus(Duration.ofHours(14));
    List<Case> cases = new ArrayList<>();
    long seed = 100;
    for (Profile p : PROFILES) {
      cases.add(
          new Case(
              new Model("bench/" + p.name() + "/healthy", p, null, from, to, seed++),
              p,
              "none",
              null));
      for (double d : DROPS) {
        String label = Math.round(d * 100) + " %";
        cases.add(
            new Case(
                new Model(
                    "bench/" + p.name() + "/step" + Math.round(d * 100),
                    p,
                    new Drop(d, dropAt, Duration.ZERO),
                    from,
                    to,
                    seed++),
                p,
                label,
                dropAt));
      }
      cases.add(
          new Case(
              new Model(
                  "bench/" + p.name() + "/drift15",
                  p,
                  new Drop(0.15, dropAt, Duration.ofHours(2)),
                  from,
                  to,
                  seed++),
              p,
              "15 % drift",
              dropAt));
    }
    Path dir = Files.createDirectories(Path.of("target/detect-bench"));
    List<Path> history =
        HistoryGenerator.writeDaily(dir, cases.stream().map(Case::model).toList(), SCRAPE);
    long bytes = 0;
    for (Path f : history) {
      bytes += Files.size(f);
    }
    System.out.printf(
        Locale.ROOT,
        "generated %d models x 14 d at %ss scrape (%d MB in %d day files); backfilling...%n",
        cases.size(),
        SCRAPE.toSeconds(),
        bytes >> 20,
        history.size());
    List<Detector> detectors =
        List.of(
            new Detector("window threshold (0.9 x level, for 10m)", c -> threshold(c, 0.9, false)),
            new Detector("window threshold (0.8 x level, for 10m)", c -> threshold(c, 0.8, false)),
            new Detector("sequential threshold (0.9 x level)", c -> threshold(c, 0.9, true)),
            new Detector("regression (10 %, 1d baseline)", DetectionBench::regression),
            new Detector("change (10 %, 30d, learn 7d)", DetectionBench::change),
            new Detector("change (10 %, 30d, learn 1d)", c -> change(c, Duration.ofDays(1))));
    Map<String, Map<Case, List<Instant>>> firings = new LinkedHashMap<>();
    String doubts;
    try (PrometheusServer prometheus =
        PrometheusServer.builder().scrapeInterval(SCRAPE).historyFiles(history).start()) {
      for (Path f : history) {
        Files.delete(f);
      }
      PrometheusClient client =
          new PrometheusClient(
              PrometheusSettings.of(prometheus.baseUri()).withTimeout(Duration.ofMinutes(2)));
      for (Detector d : detectors) {
        long start = System.nanoTime();
        List<Policy> policies = cases.stream().map(d.policy()).toList();
        Replayer.Result r =
            new Replayer(client, SpecwatchConfig.Alerting.defaults())
                .replay(policies, WINDOW, evalFrom, to, STEP);
        Map<Case, List<Instant>> byCase = new LinkedHashMap<>();
        for (Case c : cases) {
          byCase.put(c, fired(r, c.model().name()));
        }
        firings.put(d.name(), byCase);
        System.out.printf(
            Locale.ROOT,
            "%-42s replayed %d steps in %.0f s (%d range queries)%n",
            d.name(),
            r.steps(),
            (System.nanoTime() - start) / 1e9,
            r.queries());
      }
      doubts = doubts(client, cases, evalFrom);
      for (double factor : new double[] {0.9, 0.8}) {
        String name =
            String.format(Locale.ROOT, "Prometheus rule AR(5m) < %.1f x level for 10m", factor);
        Map<Case, List<Instant>> byCase = new LinkedHashMap<>();
        for (Case c : cases) {
          byCase.put(c, prometheusRule(client, c, factor, evalFrom, to));
        }
        firings.put(name, byCase);
      }
    }
    publish(dir, report(firings, cases, evalFrom, dropAt) + doubts + live(dir), wallStart);
  }

  /** When the replay's alerts of {@code recipe} fired, in order. */
  static List<Instant> fired(Replayer.Result r, String recipe) {
    return r.transitions().stream()
        .filter(t -> t.recipe().equals(recipe))
        .filter(t -> t.kind() == Transition.Kind.FIRING)
        .map(Transition::at)
        .toList();
  }

  /** Prints the report, writes it to {@code dir/report.md}, and says how long the bench took. */
  static void publish(Path dir, String report, long wallStart) throws java.io.IOException {
    System.out.print(report);
    Files.writeString(dir.resolve("report.md"), report, StandardCharsets.UTF_8);
    System.out.printf(
        Locale.ROOT,
        "%nwall time %.0f s; report in %s%n",
        (System.nanoTime() - wallStart) / 1e9,
        dir.resolve("report.md"));
  }

  /**
   * Which profiles' healthy models (learned from 7 days at the evaluation's start) are in doubt.
   */
  static String doubts(PrometheusClient client, List<Case> cases, Instant at) throws Exception {
    StringBuilder out = new StringBuilder("\nModels in doubt (healthy deployments, learn 7d):");
    dev.specwatch.alerting.Learner learner = new dev.specwatch.alerting.Learner(client);
    for (Case c : cases) {
      if (c.dropAt() == null) {
        var m = learner.learnNow(change(c), STEP, at);
        out.append(' ')
            .append(c.profile().name())
            .append(m.model() != null && m.model().doubt() != null ? " in doubt;" : " fits;");
      }
    }
    return out.append('\n').toString();
  }

  private static dev.specwatch.model.PolicyBuilder base(Case c) {
    return Policy.builder(
            c.model().name(), Map.of("model_name", c.model().name()), HistoryGenerator.K)
        .minDrafts(10)
        .forDuration(Duration.ZERO)
        .keepFiringFor(Duration.ofMinutes(10));
  }

  static Policy threshold(Case c, double factor, boolean sequential) {
    dev.specwatch.model.PolicyBuilder b =
        base(c)
            .acceptanceRate(
                new Threshold(
                    c.profile().level() * factor, OptionalDouble.empty(), Optional.empty()));
    if (sequential) {
      b.detection(new Policy.Detection(Policy.Detection.Mode.SEQUENTIAL, Duration.ofDays(30)));
    } else {
      b.forDuration(Duration.ofMinutes(10));
    }
    return b.build();
  }

  static Policy regression(Case c) {
    return base(c)
        .regression(new Policy.Regression(0.10, Duration.ofDays(1), 3.0, 10_000, Optional.empty()))
        .build();
  }

  static Policy change(Case c) {
    return change(c, Duration.ofDays(7));
  }

  /** Learning from the last {@code learn} of the history: 1 day is a young recipe. */
  static Policy change(Case c, Duration learn) {
    return base(c)
        .change(new Policy.Change(0.10, Duration.ofDays(30), learn, Optional.empty()))
        .build();
  }

  /** Rising edges of AR(5m) < X held for 10m, as Prometheus evaluates it every 30 s. */
  static List<Instant> prometheusRule(
      PrometheusClient client, Case c, double factor, Instant from, Instant to) throws Exception {
    String sel = "{model_name=\"" + c.model().name() + "\"}";
    String ar =
        "sum(rate(vllm:spec_decode_num_accepted_tokens_total"
            + sel
            + "[5m])) / sum(rate(vllm:spec_decode_num_draft_tokens_total"
            + sel
            + "[5m]))";
    String firing =
        "min_over_time(((" + ar + ") < bool " + c.profile().level() * factor + ")[10m:30s]) == 1";
    List<Instant> edges = new ArrayList<>();
    Duration step = Duration.ofSeconds(30);
    Instant chunk = from;
    Instant previous = null;
    while (chunk.isBefore(to)) {
      Instant end = chunk.plus(step.multipliedBy(9000));
      if (end.isAfter(to)) {
        end = to;
      }
      QueryResult r = client.queryRange(firing, chunk, end, step);
      if (r instanceof QueryResult.Matrix m) {
        for (Series s : m.series()) {
          for (Series.Point p : s.points()) {
            Instant t = Instant.ofEpochMilli(Math.round(p.time() * 1000));
            if (previous == null || Duration.between(previous, t).compareTo(step) > 0) {
              edges.add(t);
            }
            previous = t;
          }
        }
      }
      chunk = end.plus(step);
    }
    return edges;
  }

  /**
   * Garwood's exact 95 % interval for a Poisson count n: [χ²(0.025; 2n) / 2, χ²(0.975; 2n + 2) /
   * 2], 0 below when n is 0. A few deployment-weeks hold few false alarms: the interval says how
   * little a count of 0 or 1 tells.
   */
  static double[] garwood(long n) {
    double low =
        n == 0
            ? 0
            : new org.apache.commons.math3.distribution.ChiSquaredDistribution(2.0 * n)
                    .inverseCumulativeProbability(0.025)
                / 2;
    double high =
        new org.apache.commons.math3.distribution.ChiSquaredDistribution(2.0 * n + 2)
                .inverseCumulativeProbability(0.975)
            / 2;
    return new double[] {low, high};
  }

  static String report(
      Map<String, Map<Case, List<Instant>>> firings,
      List<Case> cases,
      Instant evalFrom,
      Instant dropAt) {
    List<String> columns = new ArrayList<>();
    for (double d : DROPS) {
      columns.add(Math.round(d * 100) + " %");
    }
    columns.add("15 % drift");
    StringBuilder out = new StringBuilder();
    out.append("\nFalse alarms per week on healthy traffic (")
        .append(PROFILES.size())
        .append(" profiles x 7 models, 6-7 healthy days each) and detection delay per drop\n")
        .append("(median over the profiles; \"-\": not found before the end, at least 10 h):\n\n");
    out.append(String.format(Locale.ROOT, "| %-46s | %22s |", "detector", "FA / week (95 %)"));
    for (String col : columns) {
      out.append(String.format(Locale.ROOT, " %10s |", col));
    }
    out.append('\n')
        .append("|")
        .append("-".repeat(48))
        .append("|")
        .append("-".repeat(24))
        .append("|");
    for (int i = 0; i < columns.size(); i++) {
      out.append("-".repeat(12)).append("|");
    }
    out.append('\n');
    StringBuilder detail = new StringBuilder("\nBy profile (FA/week; delays in minutes):\n\n");
    for (Map.Entry<String, Map<Case, List<Instant>>> d : firings.entrySet()) {
      double alarms = 0;
      double weeks = 0;
      Map<String, List<Double>> delays = new LinkedHashMap<>();
      for (Profile p : PROFILES) {
        double pAlarms = 0;
        double pWeeks = 0;
        StringBuilder row = new StringBuilder();
        for (Case c : cases) {
          if (!c.profile().equals(p)) {
            continue;
          }
          Instant healthyEnd = c.dropAt() == null ? evalFrom.plus(Duration.ofDays(7)) : c.dropAt();
          List<Instant> fired = d.getValue().get(c);
          long fa = fired.stream().filter(t -> t.isBefore(healthyEnd)).count();
          pAlarms += fa;
          pWeeks += Duration.between(evalFrom, healthyEnd).toMinutes() / (7.0 * 24 * 60);
          if (c.dropAt() != null) {
            Optional<Instant> found =
                fired.stream().filter(t -> !t.isBefore(c.dropAt())).findFirst();
            double minutes =
                found
                    .map(t -> Duration.between(c.dropAt(), t).toSeconds() / 60.0)
                    .orElse(Double.NaN);
            delays.computeIfAbsent(c.drop(), k -> new ArrayList<>()).add(minutes);
            row.append(String.format(Locale.ROOT, " %s %s;", c.drop(), fmt(minutes)));
          }
        }
        alarms += pAlarms;
        weeks += pWeeks;
        detail.append(
            String.format(
                Locale.ROOT,
                "- %s, %s: %.1f FA/week;%s%n",
                d.getKey(),
                p.name(),
                pAlarms / pWeeks,
                row));
      }
      double[] ci = garwood((long) alarms);
      out.append(
          String.format(
              Locale.ROOT,
              "| %-46s | %22s |",
              d.getKey(),
              String.format(
                  Locale.ROOT, "%.2f (%.2f–%.2f)", alarms / weeks, ci[0] / weeks, ci[1] / weeks)));
      for (String col : columns) {
        List<Double> v = new ArrayList<>(delays.getOrDefault(col, List.of()));
        v.sort((a, b) -> Double.isNaN(a) ? 1 : Double.isNaN(b) ? -1 : Double.compare(a, b));
        double median = v.isEmpty() ? Double.NaN : v.get(v.size() / 2);
        out.append(String.format(Locale.ROOT, " %10s |", fmt(median)));
      }
      out.append('\n');
    }
    return out.append(detail).toString();
  }

  /**
   * The live scenario (LiveDetection): acceptance halved from 0.39 to 0.195 at 40 drafts/s for a
   * minute, `acceptance_rate below 0.3`, `for: 0s`, `keep_firing_for: 10s`, 1 s scrape, 5 s
   * evaluation; seconds from the drop to firing and from the recovery to resolving.
   */
  static String live(Path dir) throws Exception {
    System.out.println("live scenario: 210 s against the simulator...");
    LiveDetection.Run run =
        LiveDetection.run(Files.createDirectories(dir.resolve("live")), Duration.ofSeconds(210));
    StringBuilder out =
        new StringBuilder(
            "\nLive: 1 s scrape, 5 s evaluation, 40 drafts/s, acceptance 0.39 -> 0.195 for 60 s,"
                + " `below 0.3`, `for: 0s`, `keep_firing_for: 10s`:\n\n"
                + "| detection | fired after the drop | resolved after the recovery | fired while healthy |\n"
                + "|---|---|---|---|\n");
    for (String recipe : List.of("window", "sequential")) {
      List<Transition> t = run.of(recipe);
      Instant drop = run.started().plus(LiveDetection.DROP);
      Instant back = run.started().plus(LiveDetection.RECOVERY);
      String fired = secondsAfter(t, Transition.Kind.FIRING, drop);
      String resolved = secondsAfter(t, Transition.Kind.RESOLVED, back);
      long early =
          t.stream()
              .filter(x -> x.kind() == Transition.Kind.FIRING && x.at().isBefore(drop))
              .count();
      out.append(
          String.format(Locale.ROOT, "| %s | %s | %s | %d |%n", recipe, fired, resolved, early));
    }
    return out.toString();
  }

  /** Seconds from {@code from} to the first transition of {@code kind} at or after it. */
  private static String secondsAfter(List<Transition> t, Transition.Kind kind, Instant from) {
    return t.stream()
        .filter(x -> x.kind() == kind && !x.at().isBefore(from))
        .findFirst()
        .map(
            x ->
                String.format(
                    Locale.ROOT, "%.1f s", Duration.between(from, x.at()).toMillis() / 1000.0))
        .orElse("-");
  }

  private static String fmt(double minutes) {
    return Double.isNaN(minutes) ? "-" : String.format(Locale.ROOT, "%.0f min", minutes);
  }
}
