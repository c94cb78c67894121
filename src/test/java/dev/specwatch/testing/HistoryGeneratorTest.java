package dev.specwatch.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.HistoryGenerator.Model;
import dev.specwatch.testing.HistoryGenerator.Profile;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulation's scrape outages and quiet spells: what `make heldout-bench`'s gaps and
 * quiet-spells families rest on.
 */
class HistoryGeneratorTest {
  private static final Instant FROM = Instant.parse("2026-11-02T00:00:00Z");
  private static final Profile PLAIN =
      new Profile(
          "p", 10, 0.5, false, 1, 0.62, 0.05, 0, 0.004, Duration.ofMinutes(5), 2, 1, 0, 0, 0);

  /** Every scrape the simulation hands on: time, engine, level and the three counters. */
  private static List<double[]> scrapes(Profile p, long seed) throws Exception {
    List<double[]> out = new ArrayList<>();
    Model m = new Model("m", p, null, FROM, FROM.plus(Duration.ofDays(2)), seed);
    HistoryGenerator.simulate(
        m,
        Duration.ofSeconds(30),
        (t, e, level, c) -> out.add(new double[] {t.getEpochSecond(), e, level, c[0], c[1], c[2]}));
    return out;
  }

  @Test
  void outagesDropScrapesButNotCountsAndLeaveEveryOtherScrapeAsItWas() throws Exception {
    Profile gappy = PLAIN.withGaps(4, 16);
    List<double[]> all = scrapes(PLAIN.withGaps(4, 0), 5);
    List<double[]> some = scrapes(gappy, 5);
    // Two days at 30 s on four engines: 23,044 scrapes without outages.
    assertThat(all).hasSize(4 * (2 * 2880 + 1));
    // About 32 outages of 1 to 10 minutes (5.5 on average), one engine or all of them.
    int missing = all.size() - some.size();
    assertThat(missing).isBetween(150, 1500);
    // Counters go on counting through an outage: per engine they never go back, and the first
    // scrape after one of 3 minutes or more carries the outage's drafts. About 75 drafts per 30 s
    // per engine (37.5 at the quietest hour); counters frozen through the outage would show at most
    // one interval's drafts spread over six or more, under 20.
    double slowest = Double.MAX_VALUE;
    int longOnes = 0;
    for (int e = 0; e < 4; e++) {
      double lastDrafts = -1;
      double lastT = -1;
      for (double[] s : some) {
        if (s[1] != e) {
          continue;
        }
        assertThat(s[3]).isGreaterThanOrEqualTo(lastDrafts);
        if (lastT >= 0 && s[0] - lastT >= 180) {
          slowest = Math.min(slowest, (s[3] - lastDrafts) / ((s[0] - lastT) / 30));
          longOnes++;
        }
        lastDrafts = s[3];
        lastT = s[0];
      }
    }
    assertThat(longOnes).as("outages of 3 minutes or more").isPositive();
    assertThat(slowest).as("drafts per 30 s across an outage, the slowest").isGreaterThan(25);
    // The scrapes left are the history without outages, scrape for scrape.
    int j = 0;
    for (double[] s : some) {
      while (all.get(j)[0] != s[0] || all.get(j)[1] != s[1]) {
        j++;
      }
      assertThat(s).containsExactly(all.get(j));
    }
  }

  @Test
  void quietSpellsStopEveryEngineAndLeaveEveryOtherDrawAsItWas() throws Exception {
    List<double[]> plain = scrapes(PLAIN.withGaps(2, 0), 9);
    List<double[]> quiet = scrapes(PLAIN.withGaps(2, 0).withPauses(5), 9);
    // Every scrape is still taken, at the same level.
    assertThat(quiet).hasSize(plain.size());
    // Per engine and 30 s, the drafts are the plain history's or none; the first scrape of each
    // engine has no increment to compare.
    int still = 0;
    int longest = 0;
    int run = 0;
    boolean[] stood = new boolean[quiet.size()];
    for (int i = 2; i < quiet.size(); i++) {
      double[] q = quiet.get(i);
      double[] a = plain.get(i);
      assertThat(q[0]).isEqualTo(a[0]);
      assertThat(q[2]).as("level at %s", q[0]).isEqualTo(a[2]);
      double moved = q[3] - quiet.get(i - 2)[3];
      double plainMoved = a[3] - plain.get(i - 2)[3];
      if (moved == 0 && plainMoved > 0) {
        stood[i] = true;
        still++;
        run = q[1] == 0 ? run + 1 : run;
        longest = Math.max(longest, run);
      } else {
        assertThat(moved).as("drafts in 30 s at %s", q[0]).isEqualTo(plainMoved);
        run = q[1] == 0 ? 0 : run;
      }
      if (q[1] == 1) {
        assertThat(stood[i])
            .as("both engines stand still together at %s", q[0])
            .isEqualTo(stood[i - 1]);
      }
    }
    // Ten spells in two days of 5 to 45 minutes (25 on average): about 500 still scrapes per
    // engine, every engine at once, some of them 10 scrapes (5 minutes) long at least.
    assertThat(still / 2).isBetween(150, 1200);
    assertThat(longest).isGreaterThanOrEqualTo(10);
  }
}
