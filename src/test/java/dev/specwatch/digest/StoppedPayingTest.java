package dev.specwatch.digest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.advisor.SpeedupByLoad;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The digest's "stopped paying above N running requests on DAY" (docs/DIGEST.md). */
class StoppedPayingTest {
  private static final List<String> WEEK = List.of("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun");

  /** A day's result: one speed-up per bucket 1, 2–3, 4–7, 8–15, 16–31, 32–63; null: no number. */
  private static SpeedupByLoad.Result day(Double... speedups) {
    List<SpeedupByLoad.Bucket> buckets = new ArrayList<>();
    for (int i = 0; i < speedups.length; i++) {
      int min = 1 << i;
      int max = (1 << (i + 1)) - 1;
      Double s = speedups[i];
      buckets.add(
          new SpeedupByLoad.Bucket(
              min,
              max,
              1,
              1,
              s,
              s,
              s,
              null,
              null,
              s == null ? "too little data" : s > 1 ? "pays" : "costs",
              null));
    }
    return new SpeedupByLoad.Result(buckets, null);
  }

  @Test
  void namesTheDayALoadThatPaidStartedToCostAndStayedSo() {
    List<SpeedupByLoad.Result> days =
        List.of(
            day(2.0, 1.6, 1.2, 1.05, 0.9),
            day(2.0, 1.6, 1.2, 1.04, 0.9),
            day(1.9, 1.5, 1.1, 0.95, 0.8),
            day(1.9, 1.5, 1.1, 0.97, null),
            day(1.9, 1.5, 1.1, null, null));
    assertThat(DigestSpeedup.stoppedPaying(WEEK, days))
        .isEqualTo("stopped paying above 7 running requests on Wed");
  }

  @Test
  void aDipThatRecoversAndALoadThatNeverPaidNameNoDay() {
    // Thursday costs at 8-15, Friday pays there again: a dip, not a change.
    List<SpeedupByLoad.Result> dip =
        List.of(day(2.0, 1.6, 1.2, 1.05), day(2.0, 1.6, 1.2, 0.98), day(2.0, 1.6, 1.2, 1.06));
    assertThat(DigestSpeedup.stoppedPaying(WEEK, dip)).isNull();
    // 16-31 cost every day: it never paid there, so it did not stop paying.
    List<SpeedupByLoad.Result> steady =
        List.of(day(2.0, 1.6, 1.2, 1.05, 0.9), day(2.0, 1.6, 1.2, 1.05, 0.9));
    assertThat(DigestSpeedup.stoppedPaying(WEEK, steady)).isNull();
  }

  @Test
  void aDayThatOnlyBreaksEvenIsNotADayThatStoppedPaying() {
    // Wednesday's 8-15 bucket reads 0.98 but its interval holds 1: no verdict against it. Before,
    // the point estimate alone named Wednesday.
    List<SpeedupByLoad.Result> days =
        List.of(
            day(2.0, 1.6, 1.2, 1.05),
            day(2.0, 1.6, 1.2, 1.04),
            withBucket(day(1.9, 1.5, 1.1, 1.0), 3, 0.98, 0.95, 1.01),
            withBucket(day(1.9, 1.5, 1.1, 1.0), 3, 0.99, 0.96, 1.02));
    assertThat(DigestSpeedup.stoppedPaying(WEEK, days)).isNull();
    // Once a day's whole interval is under 1, that day is named.
    List<SpeedupByLoad.Result> measured =
        List.of(
            day(2.0, 1.6, 1.2, 1.05),
            withBucket(day(1.9, 1.5, 1.1, 1.0), 3, 0.98, 0.95, 1.01),
            withBucket(day(1.9, 1.5, 1.1, 1.0), 3, 0.96, 0.94, 0.98));
    assertThat(DigestSpeedup.stoppedPaying(WEEK, measured))
        .isEqualTo("stopped paying above 7 running requests on Wed");
  }

  /** {@code r} with bucket {@code i}'s speed-up and interval replaced, its verdict from them. */
  private static SpeedupByLoad.Result withBucket(
      SpeedupByLoad.Result r, int i, double speedup, double low, double high) {
    List<SpeedupByLoad.Bucket> buckets = new ArrayList<>(r.byLoad());
    SpeedupByLoad.Bucket b = buckets.get(i);
    buckets.set(
        i,
        new SpeedupByLoad.Bucket(
            b.runningMin(),
            b.runningMax(),
            1,
            1,
            speedup,
            low,
            high,
            null,
            null,
            low > 1 ? "pays" : high < 1 ? "costs" : SpeedupByLoad.BREAKS_EVEN,
            null));
    return new SpeedupByLoad.Result(buckets, null);
  }

  @Test
  void costingAtEveryLoadSaysSo() {
    List<SpeedupByLoad.Result> days = List.of(day(1.5, 1.2), day(0.95, 0.9), day(null, 0.92));
    assertThat(DigestSpeedup.stoppedPaying(WEEK, days))
        .isEqualTo("stopped paying at every measured load on Tue");
  }
}
