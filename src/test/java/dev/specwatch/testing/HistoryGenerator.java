package dev.specwatch.testing;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Deterministic, realistic histories of vLLM's speculative-decoding counters, as OpenMetrics for
 * {@code promtool tsdb create-blocks-from openmetrics}. Unlike the simulator's closed-form
 * counters, acceptance here is noisy the way production traffic is (docs/DETECTION.md):
 *
 * <ul>
 *   <li>traffic follows the day (optionally idle at night) with random bursts;
 *   <li>the prompt mix shifts acceptance over the day, each day a little differently;
 *   <li>the mix wanders at minute scale (an AR(1) process with a correlation time);
 *   <li>requests differ in acceptance: overdispersion φ over binomial within a scrape;
 *   <li>engines restart (counter resets) and data-parallel engines split the traffic.
 * </ul>
 *
 * A drop multiplies acceptance by (1 − size) from its start, at once or ramped (a slow drift). The
 * same seed gives the same history.
 *
 * <p>Every pattern is aligned to the model's own {@code from}: hour 0 of the day is {@code from},
 * and bursts, restarts and day-to-day shifts fall at offsets from it, never at a wall-clock hour.
 * Tests anchor {@code from} at a UTC midnight ({@link #lastMidnight}) so that detectors which bin
 * by hour of day see the same history whatever the hour the suite starts.
 */
public final class HistoryGenerator {
  public static final int K = 3;

  /**
   * How a deployment's traffic and acceptance behave.
   *
   * @param draftsPerSecond mean verification steps per second (busy hours higher)
   * @param trafficSwing relative day/night swing of the traffic, 0..1
   * @param idleNights no traffic in hours 1 to 6 of each day (counted from the model's start)
   * @param burstsPerDay 20-minute bursts at triple traffic
   * @param level healthy acceptance rate
   * @param mixSwing relative day/night swing of acceptance (the prompt mix)
   * @param dayToDay relative standard deviation of each day's level
   * @param wanderSd standard deviation of the minute-scale wander (absolute)
   * @param wanderTime its correlation time
   * @param phi overdispersion within a scrape interval
   * @param engines data-parallel engines
   * @param restartsPerWeek engine restarts (counter resets)
   * @param gapsPerDay scrape outages: runs of 1 to 10 minutes in which Prometheus records no sample
   *     of one engine (of every engine, one time in five), as when a saturated engine's {@code
   *     /metrics} times out; its counters go on counting
   * @param pausesPerDay quiet spells: runs of 5 to 45 minutes in which no engine serves a request
   *     (between one team's jobs, over lunch); every engine is scraped and its counters stand still
   */
  public record Profile(
      String name,
      double draftsPerSecond,
      double trafficSwing,
      boolean idleNights,
      double burstsPerDay,
      double level,
      double mixSwing,
      double dayToDay,
      double wanderSd,
      Duration wanderTime,
      double phi,
      int engines,
      double restartsPerWeek,
      double gapsPerDay,
      double pausesPerDay) {
    /**
     * The mean verification steps per second at {@code hour} of the model's day (0 to 24), before
     * idle nights, pauses and bursts: busiest at 15:00, quietest at 03:00.
     */
    public double trafficAt(double hour) {
      return draftsPerSecond * (1 + trafficSwing * Math.sin(2 * Math.PI * (hour - 9) / 24));
    }

    /** This profile with {@code perDay} scrape outages a day on {@code engines} engines. */
    public Profile withGaps(int engines, double perDay) {
      return with(engines, restartsPerWeek, perDay, pausesPerDay);
    }

    /** This profile with engines restarted {@code perWeek} times a week. */
    public Profile withRestartsPerWeek(double perWeek) {
      return with(engines, perWeek, gapsPerDay, pausesPerDay);
    }

    /** This profile with {@code perDay} quiet spells a day. */
    public Profile withPauses(double perDay) {
      return with(engines, restartsPerWeek, gapsPerDay, perDay);
    }

    private Profile with(
        int engines, double restartsPerWeek, double gapsPerDay, double pausesPerDay) {
      return new Profile(
          name,
          draftsPerSecond,
          trafficSwing,
          idleNights,
          burstsPerDay,
          level,
          mixSwing,
          dayToDay,
          wanderSd,
          wanderTime,
          phi,
          engines,
          restartsPerWeek,
          gapsPerDay,
          pausesPerDay);
    }
  }

  /**
   * A thin deployment (about 10 drafts/s on one engine, acceptance 0.62 swinging ±4 % a day, a
   * 5-minute wander, one restart a week): `make detect-bench`'s {@code thin} profile and the
   * histories of the change and suggest integration tests.
   */
  public static Profile thin(String name) {
    return new Profile(
        name, 10, 0.5, false, 1, 0.62, 0.04, 0.01, 0.015, Duration.ofMinutes(5), 3, 1, 1, 0, 0);
  }

  /** A drop of {@code size} (0.15: 15 %) starting {@code at}, reached after {@code ramp}. */
  public record Drop(double size, Instant at, Duration ramp) {}

  /**
   * Acceptance structure beyond the profile's (the held-out families of `make heldout-bench`): a
   * relative deviation at each scrape, drawn from the model's own random stream. A fresh one per
   * pass over the model, so every counter family sees the same history.
   */
  @FunctionalInterface
  public interface Noise {
    /** The relative deviation at {@code t} ({@code -0.05}: 5 % lower); {@code dt} seconds apart. */
    double next(Instant t, double dt, SplittableRandom random);

    Noise NONE = (t, dt, random) -> 0;
  }

  /**
   * @param noise a new {@link Noise} for each pass; {@code () -> Noise.NONE} for the profile alone
   */
  public record Model(
      String name,
      Profile profile,
      Drop drop,
      Instant from,
      Instant to,
      long seed,
      java.util.function.Supplier<Noise> noise) {
    public Model(String name, Profile profile, Drop drop, Instant from, Instant to, long seed) {
      this(name, profile, drop, from, to, seed, () -> Noise.NONE);
    }
  }

  private HistoryGenerator() {}

  /**
   * The latest UTC midnight at or before {@code now}: a history that ends there is the same, and
   * lies the same way on the hours of the day, whatever the time a test starts.
   */
  public static Instant lastMidnight(Instant now) {
    return now.truncatedTo(java.time.temporal.ChronoUnit.DAYS);
  }

  /**
   * The latest UTC midnight that starts a Tuesday at or before {@code now}: the benches' histories
   * end there, so a family with a weekly pattern puts its weekend on the same days of its history
   * whatever the day the bench runs (and the figures repeat from one run to the next).
   */
  public static Instant lastTuesdayMidnight(Instant now) {
    Instant t = lastMidnight(now);
    while (t.atZone(java.time.ZoneOffset.UTC).getDayOfWeek() != java.time.DayOfWeek.TUESDAY) {
      t = t.minus(java.time.Duration.ofDays(1));
    }
    return t;
  }

  private static final String[] FAMILIES = {
    "vllm:spec_decode_num_drafts",
    "vllm:spec_decode_num_draft_tokens",
    "vllm:spec_decode_num_accepted_tokens"
  };

  /**
   * Writes every model's counters as one OpenMetrics file per UTC day under {@code dir} (promtool
   * reads a file once per block it writes, so day files backfill many times faster than one).
   */
  public static List<Path> writeDaily(Path dir, List<Model> models, Duration scrape)
      throws IOException {
    Map<Long, Writer> days = new TreeMap<>();
    Map<Long, Path> files = new TreeMap<>();
    try {
      for (int family = 0; family < FAMILIES.length; family++) {
        int f = family;
        Day route =
            (epochDay) -> {
              Writer w = days.get(epochDay);
              if (w == null) {
                Path file = dir.resolve("history-" + epochDay + ".om");
                w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
                days.put(epochDay, w);
                files.put(epochDay, file);
                for (int g = 0; g <= f; g++) {
                  w.write("# TYPE " + FAMILIES[g] + " counter\n");
                }
              }
              return w;
            };
        for (Writer w : days.values()) {
          w.write("# TYPE " + FAMILIES[family] + " counter\n");
        }
        for (Model m : models) {
          emit(route, m, scrape, family);
        }
      }
      for (Writer w : days.values()) {
        w.write("# EOF\n");
      }
    } finally {
      for (Writer w : days.values()) {
        w.close();
      }
    }
    return List.copyOf(files.values());
  }

  /** The writer for one UTC day's file. */
  @FunctionalInterface
  private interface Day {
    Writer of(long epochDay) throws IOException;
  }

  /** One scrape of one engine, as the simulation produces it. */
  @FunctionalInterface
  public interface Scrape {
    /**
     * @param level the acceptance the scrape's tokens were drawn at (noise and drop included)
     * @param counters the engine's drafts, draft tokens and accepted tokens so far (after a restart
     *     they start again from zero)
     */
    void at(Instant t, int engine, double level, long[] counters) throws IOException;
  }

  /** Runs the model's simulation and writes one family's samples. */
  private static void emit(Day out, Model m, Duration scrape, int family) throws IOException {
    StringBuilder line = new StringBuilder();
    simulate(
        m,
        scrape,
        (t, e, level, counters) -> {
          line.setLength(0);
          line.append(FAMILIES[family])
              .append("_total{model_name=\"")
              .append(m.name())
              .append("\",engine=\"")
              .append(e)
              .append("\"} ")
              .append(counters[family])
              .append(' ')
              .append(String.format(Locale.ROOT, "%d", t.getEpochSecond()))
              .append('\n');
          out.of(Math.floorDiv(t.getEpochSecond(), 86_400)).write(line.toString());
        });
  }

  /**
   * Runs the model's simulation, scrape by scrape: the same seed gives the same scrapes, whatever
   * consumes them (the backfilled histories, or {@code make heldout-bench}'s bound on what any
   * windowed test could do on the same noise).
   */
  public static void simulate(Model m, Duration scrape, Scrape out) throws IOException {
    Profile p = m.profile();
    SplittableRandom random = new SplittableRandom(m.seed());
    long days = Duration.between(m.from(), m.to()).toDays() + 2;
    double[] dayOffset = new double[(int) days];
    for (int d = 0; d < days; d++) {
      dayOffset[d] = p.dayToDay() * gaussian(random);
    }
    List<Instant> bursts = new ArrayList<>();
    List<Instant> restarts = new ArrayList<>();
    double spanDays = Duration.between(m.from(), m.to()).toSeconds() / 86400.0;
    for (int i = 0; i < Math.round(p.burstsPerDay() * spanDays); i++) {
      bursts.add(m.from().plusSeconds((long) (random.nextDouble() * spanDays * 86400)));
    }
    for (int i = 0; i < Math.round(p.restartsPerWeek() * spanDays / 7); i++) {
      restarts.add(m.from().plusSeconds((long) (random.nextDouble() * spanDays * 86400)));
    }
    // Outages come from a stream of their own: they take scrapes away and change nothing else.
    SplittableRandom outages = new SplittableRandom(m.seed() ^ 0x5ca1ab1eL);
    List<Outage> gaps = new ArrayList<>();
    for (int i = 0; i < Math.round(p.gapsPerDay() * spanDays); i++) {
      Instant start = m.from().plusSeconds((long) (outages.nextDouble() * spanDays * 86400));
      Instant end = start.plusSeconds(60 + (long) (outages.nextDouble() * 540));
      gaps.add(
          new Outage(start, end, outages.nextDouble() < 0.2 ? -1 : outages.nextInt(p.engines())));
    }
    // Quiet spells too: they take traffic away and change nothing else.
    SplittableRandom quiet = new SplittableRandom(m.seed() ^ 0x9a05edL);
    List<Outage> pauses = new ArrayList<>();
    for (int i = 0; i < Math.round(p.pausesPerDay() * spanDays); i++) {
      Instant start = m.from().plusSeconds((long) (quiet.nextDouble() * spanDays * 86400));
      pauses.add(
          new Outage(start, start.plusSeconds(300 + (long) (quiet.nextDouble() * 2400)), -1));
    }
    double dt = scrape.toMillis() / 1000.0;
    double rho = Math.exp(-dt / Math.max(1, p.wanderTime().toSeconds()));
    double wander = p.wanderSd() * gaussian(random);
    Noise noise = m.noise().get();
    long[][] counters = new long[p.engines()][3];
    for (Instant t = m.from(); !t.isAfter(m.to()); t = t.plus(scrape)) {
      double hour = (Duration.between(m.from(), t).toSeconds() / 3600.0) % 24;
      double traffic = p.trafficAt(hour);
      if (p.idleNights() && hour >= 1 && hour < 6) {
        traffic = 0;
      }
      if (within(pauses, t, 0)) {
        traffic = 0;
      }
      for (Instant b : bursts) {
        if (!t.isBefore(b) && t.isBefore(b.plus(Duration.ofMinutes(20)))) {
          traffic *= 3;
        }
      }
      wander = ar1Step(wander, rho, p.wanderSd(), random);
      int day = (int) Duration.between(m.from(), t).toDays();
      double level = mixLevel(p, hour) * (1 + dayOffset[day]) + wander;
      level *= 1 + noise.next(t, dt, random);
      if (m.drop() != null && !t.isBefore(m.drop().at())) {
        double ramp =
            m.drop().ramp().isZero()
                ? 1
                : Math.min(
                    1,
                    (double) Duration.between(m.drop().at(), t).toSeconds()
                        / m.drop().ramp().toSeconds());
        level *= 1 - m.drop().size() * ramp;
      }
      level = Math.min(Math.max(level, 0.01), 0.99);
      for (int e = 0; e < p.engines(); e++) {
        for (Instant r : restarts) {
          if (!t.isBefore(r)
              && t.isBefore(r.plus(scrape))
              && e == (r.getEpochSecond() % p.engines())) {
            counters[e] = new long[3];
          }
        }
        double mean = traffic * dt / p.engines();
        long drafts = Math.max(0, Math.round(mean + Math.sqrt(mean) * gaussian(random)));
        long tokens = drafts * K;
        long accepted = accepted(tokens, level, p.phi(), random);
        counters[e][0] += drafts;
        counters[e][1] += tokens;
        counters[e][2] += accepted;
        if (!within(gaps, t, e)) {
          out.at(t, e, level, counters[e]);
        }
      }
    }
  }

  /** Whether {@code engine} at {@code t} is in one of the outages (or quiet spells). */
  private static boolean within(List<Outage> spans, Instant t, int engine) {
    for (Outage g : spans) {
      if (g.covers(t, engine)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A scrape outage (or a quiet spell) from {@code from} until {@code to} of one engine, or of all
   * of them (-1).
   */
  private record Outage(Instant from, Instant to, int engine) {
    boolean covers(Instant t, int e) {
      return (engine < 0 || engine == e) && !t.isBefore(from) && t.isBefore(to);
    }
  }

  /** The profile's level at {@code hour} of the model's day: the prompt mix's swing alone. */
  public static double mixLevel(Profile p, double hour) {
    return p.level() * (1 + p.mixSwing() * Math.sin(2 * Math.PI * (hour - 15) / 24));
  }

  /** Accepted tokens of {@code tokens} at {@code level}, binomial with overdispersion φ. */
  public static long accepted(long tokens, double level, double phi, SplittableRandom random) {
    double sd = Math.sqrt(tokens * level * (1 - level) * phi);
    long accepted = Math.round(tokens * level + sd * gaussian(random));
    return Math.min(Math.max(accepted, 0), tokens);
  }

  /**
   * One step of an AR(1) process with stationary sd {@code sd}: {@code x} after {@code dt} seconds,
   * with correlation time {@code tau} seconds.
   */
  public static double ar1(double x, double dt, double tau, double sd, SplittableRandom random) {
    return ar1Step(x, Math.exp(-dt / tau), sd, random);
  }

  /**
   * One step of an AR(1) process with lag-one correlation {@code rho} and stationary sd {@code sd}.
   */
  public static double ar1Step(double x, double rho, double sd, SplittableRandom random) {
    return rho * x + Math.sqrt(1 - rho * rho) * sd * gaussian(random);
  }

  public static double gaussian(SplittableRandom random) {
    double u = random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
  }
}
