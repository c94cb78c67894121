package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The watchdog's one look: heal a stall once, say it, and stop feeding nothing it should not. */
class WatchdogTest {
  final AtomicLong nanos = new AtomicLong();
  final AtomicLong wall = new AtomicLong(1_796_000_000_000L);
  final AtomicInteger fired = new AtomicInteger();
  final List<String> diagnosed = new ArrayList<>();

  final Watchdog.Scheduler scheduler =
      new Watchdog.Scheduler() {
        @Override
        public String diagnose() {
          diagnosed.add("asked");
          return "Quartz: next fire in the future";
        }

        @Override
        public void fireNow() {
          fired.incrementAndGet();
        }
      };

  @Test
  void aStalledScheduleIsFiredOnceAndNotAgainWhileTheStallLasts() {
    Liveness liveness = new Liveness(nanos::get, Duration.ofSeconds(30), true);
    try (Watchdog w = Watchdog.start(liveness, scheduler, wall::get, nanos::get)) {
      w.check();
      assertThat(fired).hasValue(0);
      advance(Duration.ofMinutes(3));
      w.check();
      w.check();
      assertThat(fired).as("fired once per stall").hasValue(1);
      assertThat(diagnosed).hasSize(1);
      liveness.started(0);
      liveness.finished(0);
      w.check();
      advance(Duration.ofMinutes(3));
      w.check();
      assertThat(fired).as("a new stall is fired again").hasValue(2);
    }
  }

  /** Both clocks move together, as they do when nothing steps. */
  void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
    wall.addAndGet(d.toMillis());
  }

  @Test
  void aWallClockThatStepsBackIsRescheduledAtOnceNotAfterTheStall() {
    Liveness liveness = new Liveness(nanos::get, Duration.ofSeconds(30), true);
    try (Watchdog w = Watchdog.start(liveness, scheduler, wall::get, nanos::get)) {
      advance(Duration.ofSeconds(2));
      wall.addAndGet(-Duration.ofMinutes(5).toMillis()); // before the first look
      w.check();
      assertThat(fired).as("a step between start and the first look counts").hasValue(1);
      fired.set(0);
      advance(Duration.ofSeconds(10));
      wall.addAndGet(-Duration.ofSeconds(3).toMillis()); // NTP slewing: not a step
      w.check();
      assertThat(fired).hasValue(0);
      advance(Duration.ofSeconds(10));
      wall.addAndGet(-Duration.ofMinutes(5).toMillis());
      w.check();
      assertThat(fired).as("rescheduled on the first look after the step").hasValue(1);
      advance(Duration.ofSeconds(10));
      w.check();
      assertThat(fired).hasValue(1);
      wall.addAndGet(Duration.ofMinutes(5).toMillis()); // a step forward: Quartz's misfire rule
      w.check();
      assertThat(fired).hasValue(1);
    }
  }
}
