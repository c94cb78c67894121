package dev.specwatch.testing;

import dev.specwatch.advisor.SpeedupByLoad;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Histories of a speculative deployment and its baseline that share no model with the speed-up
 * estimator ({@link SpeedupByLoad}): written for issue 40 before the estimator's interval was
 * changed, to judge that change (docs/SPEEDUP.md, "Held-out families").
 *
 * <p>The estimator assumes a constant per-request speed inside each bucket of load and residuals
 * with a lag-1 structure. Here, per-request speed is a smooth function of the batch (memory bound
 * at one request, compute bound at sixty: {@code v(r) = 50 / (1 + r/24)} tokens/s a request for the
 * baseline, times a speed-up {@code S(r) = 2 − 0.3 ln r} that falls through 1 near 28 running), and
 * each family breaks one more assumption:
 *
 * <ul>
 *   <li>{@code drift}: a slow multiplicative drift (AR(1), ρ = 0.995 a step, 6 % sd: the GPU's
 *       clocks, the prompt mix over hours) on top of 8 % independent step noise;
 *   <li>{@code mix follows load}: a share of long-context requests that grows with load (10 % at
 *       one running, about 70 % at sixty) and wanders slowly; long requests decode 25 % slower on
 *       the baseline and 40 % slower with speculation (drafts are accepted less on long contexts);
 *   <li>{@code heavy tails}: Student-t (3 degrees of freedom) step noise, correlated (AR(1), ρ =
 *       0.7), and one step in a hundred losing 30–90 % of its tokens (a preemption, a long
 *       prefill);
 *   <li>{@code load within a step}: running requests as a birth-death process at 5 s, twelve to a
 *       one-minute step, arrivals following a day; a step reports its mean running requests while
 *       its tokens come from the speed at each instant's batch;
 *   <li>{@code restarts and gaps}: written after the other four had been run against candidate
 *       intervals and before one was chosen, to judge the choice: a restart every 4–8 hours leaves
 *       a gap of 3–10 missing steps and then ten minutes of warm-up at 70 % speed (cold caches,
 *       graph capture); noise whose spread grows with the batch (4 % at one request, 15 % at sixty)
 *       and lasts (AR(1), ρ = 0.9).
 * </ul>
 *
 * <p>Every step carries its expected tokens/s given the load it ran (the noise, drift, mix wander
 * and stalls at their means): a bucket's true speed is Σ expected ÷ Σ running over its steps, the
 * quantity the estimator targets for the loads that happened, and the true speed-up the ratio of
 * the two sides'.
 */
public final class SpeedupFamilies {
  private SpeedupFamilies() {}

  /** A step and its expected tokens/s (the noise at its mean), for the truth. */
  public record TruthStep(SpeedupByLoad.Step step, double expected) {}

  /** A family: a side's history of {@code steps} one-minute steps from a seed. */
  public interface Family {
    String name();

    List<TruthStep> side(boolean speculative, int steps, long seed);
  }

  public static final List<Family> ALL =
      List.of(
          family("drift", SpeedupFamilies::drift),
          family("mix follows load", SpeedupFamilies::mixFollowsLoad),
          family("heavy tails", SpeedupFamilies::heavyTails),
          family("load within a step", SpeedupFamilies::loadWithinStep),
          family("restarts and gaps", SpeedupFamilies::restartsAndGaps));

  interface Generator {
    List<TruthStep> side(boolean speculative, int steps, SplittableRandom random);
  }

  static Family family(String name, Generator g) {
    return new Family() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public List<TruthStep> side(boolean speculative, int steps, long seed) {
        return g.side(speculative, steps, new SplittableRandom(seed));
      }
    };
  }

  /** Per-request tokens/s at a batch of {@code r}: the baseline's, or with speculation. */
  public static double speed(boolean speculative, double r) {
    double base = 50 / (1 + r / 24);
    return speculative ? base * (2 - 0.3 * Math.log(Math.max(r, 1e-9))) : base;
  }

  /**
   * Load over a day and a half cycle: a log-normal wander (AR(1) at 30 min) around a level swinging
   * between about 1 and 40 running requests, clipped to [0.6, 64).
   */
  static final class Load {
    private final SplittableRandom random;
    private final double phase;
    private double wander;
    private int t;

    Load(SplittableRandom random) {
      this.random = random;
      this.phase = random.nextDouble() * 2 * Math.PI;
      this.wander = random.nextGaussian() * 0.5;
    }

    double next() {
      double day = Math.sin(2 * Math.PI * t++ / 1440.0 + phase);
      double rho = Math.exp(-1 / 30.0);
      wander = rho * wander + Math.sqrt(1 - rho * rho) * 0.5 * random.nextGaussian();
      return Math.max(0.6, Math.min(63, Math.exp(1.8 + 1.6 * day + wander)));
    }
  }

  static List<TruthStep> drift(boolean speculative, int steps, SplittableRandom random) {
    Load load = new Load(random);
    double rho = 0.995;
    double drift = 0.06 * random.nextGaussian();
    List<TruthStep> out = new ArrayList<>();
    for (int i = 0; i < steps; i++) {
      double r = load.next();
      drift = rho * drift + Math.sqrt(1 - rho * rho) * 0.06 * random.nextGaussian();
      double expected = r * speed(speculative, r);
      double y = expected * (1 + drift) * (1 + 0.08 * random.nextGaussian());
      out.add(new TruthStep(new SpeedupByLoad.Step(Math.max(0, y), r), expected));
    }
    return out;
  }

  static List<TruthStep> mixFollowsLoad(boolean speculative, int steps, SplittableRandom random) {
    Load load = new Load(random);
    double wander = 0;
    double noise = 0;
    double slow = speculative ? 0.6 : 0.75;
    List<TruthStep> out = new ArrayList<>();
    for (int i = 0; i < steps; i++) {
      double r = load.next();
      wander = 0.98 * wander + Math.sqrt(1 - 0.98 * 0.98) * 0.05 * random.nextGaussian();
      noise = 0.5 * noise + Math.sqrt(1 - 0.25) * 0.05 * random.nextGaussian();
      double share = 0.1 + 0.15 * Math.log(Math.max(r, 1));
      double realised = Math.max(0, Math.min(1, share + wander));
      double expected = r * speed(speculative, r) * (1 - share + share * slow);
      double y = r * speed(speculative, r) * (1 - realised + realised * slow) * (1 + noise);
      out.add(new TruthStep(new SpeedupByLoad.Step(Math.max(0, y), r), expected));
    }
    return out;
  }

  static List<TruthStep> heavyTails(boolean speculative, int steps, SplittableRandom random) {
    Load load = new Load(random);
    double noise = 0;
    List<TruthStep> out = new ArrayList<>();
    for (int i = 0; i < steps; i++) {
      double r = load.next();
      double chi = 0;
      for (int j = 0; j < 3; j++) {
        double z = random.nextGaussian();
        chi += z * z;
      }
      double studentT = random.nextGaussian() / Math.sqrt(chi / 3);
      noise = 0.7 * noise + Math.sqrt(1 - 0.49) * 0.06 * studentT;
      double stall = random.nextDouble() < 0.01 ? 0.3 + 0.6 * random.nextDouble() : 0;
      double mean = r * speed(speculative, r);
      double expected = mean * (1 - 0.01 * 0.6);
      double y = mean * (1 + noise) * (1 - stall);
      out.add(new TruthStep(new SpeedupByLoad.Step(Math.max(0, y), r), expected));
    }
    return out;
  }

  static List<TruthStep> loadWithinStep(boolean speculative, int steps, SplittableRandom random) {
    double phase = random.nextDouble() * 2 * Math.PI;
    int running = 1 + random.nextInt(10);
    double finish = 1 - Math.exp(-5 / 90.0); // a request lasts about 90 s
    List<TruthStep> out = new ArrayList<>();
    for (int i = 0; i < steps; i++) {
      double sumR = 0;
      double sumY = 0;
      double sumExpected = 0;
      for (int j = 0; j < 12; j++) {
        double day = Math.sin(2 * Math.PI * (i + j / 12.0) / 1440.0 + phase);
        double arrivals = 5 / 90.0 * Math.exp(1.8 + 1.6 * day); // Little: about e^(…) running
        running += poisson(random, arrivals) - binomial(random, running, finish);
        running = Math.min(running, 63);
        double mean = running * speed(speculative, running);
        sumR += running;
        sumExpected += mean;
        sumY += mean * (1 + 0.1 * random.nextGaussian());
      }
      out.add(
          new TruthStep(
              new SpeedupByLoad.Step(Math.max(0, sumY / 12), sumR / 12), sumExpected / 12));
    }
    return out;
  }

  static List<TruthStep> restartsAndGaps(boolean speculative, int steps, SplittableRandom random) {
    Load load = new Load(random);
    double noise = 0;
    int nextRestart = 240 + random.nextInt(240);
    int warm = Integer.MAX_VALUE;
    boolean gap = false;
    List<TruthStep> out = new ArrayList<>();
    for (int i = 0; i < steps; i++) {
      double r = load.next();
      if (i == nextRestart) {
        int missing = 3 + random.nextInt(8);
        i += missing;
        nextRestart = i + 240 + random.nextInt(240);
        warm = 0;
        gap = true;
        continue;
      }
      double spread = 0.04 + 0.11 * Math.log(r) / Math.log(60);
      noise = 0.9 * noise + Math.sqrt(1 - 0.81) * random.nextGaussian();
      double expected = r * speed(speculative, r) * (warm++ < 10 ? 0.7 : 1);
      double y = expected * (1 + Math.max(0.04, spread) * noise);
      out.add(new TruthStep(new SpeedupByLoad.Step(Math.max(0, y), r, gap), expected));
      gap = false;
    }
    return out;
  }

  static int poisson(SplittableRandom random, double mean) {
    double l = Math.exp(-mean);
    int k = 0;
    double p = random.nextDouble();
    while (p > l) {
      k++;
      p *= random.nextDouble();
    }
    return k;
  }

  static int binomial(SplittableRandom random, int n, double p) {
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (random.nextDouble() < p) {
        k++;
      }
    }
    return k;
  }

  /**
   * A bucket's true speed-up: Σ expected ÷ Σ running over each side's steps in bucket {@code b}
   * (the estimator's own bucketing and validity rules), speculative over baseline; NaN when a side
   * has no step there.
   */
  public static double truth(List<TruthStep> speculative, List<TruthStep> baseline, int b) {
    return truthSpeed(speculative, b) / truthSpeed(baseline, b);
  }

  static double truthSpeed(List<TruthStep> side, int b) {
    double y = 0;
    double x = 0;
    for (TruthStep s : side) {
      double r = s.step().running();
      if (r > 0 && Double.isFinite(s.step().tokensPerSecond()) && SpeedupByLoad.bucketOf(r) == b) {
        y += s.expected();
        x += r;
      }
    }
    return x == 0 ? Double.NaN : y / x;
  }

  /** The steps alone, for the estimator. */
  public static List<SpeedupByLoad.Step> steps(List<TruthStep> side) {
    return side.stream().map(TruthStep::step).toList();
  }
}
