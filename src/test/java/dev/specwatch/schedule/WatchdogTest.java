package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The watchdog's one look: heal a stall once, say it, and stop feeding nothing it should not. */
class WatchdogTest {
  final AtomicLong nanos = new AtomicLong();
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
    try (Watchdog w = Watchdog.start(liveness, scheduler, Optional.empty(), Optional.empty())) {
      w.check();
      assertThat(fired).hasValue(0);
      nanos.addAndGet(Duration.ofMinutes(3).toNanos());
      w.check();
      w.check();
      assertThat(fired).as("fired once per stall").hasValue(1);
      assertThat(diagnosed).hasSize(1);
      liveness.started(0);
      liveness.finished(0);
      w.check();
      nanos.addAndGet(Duration.ofMinutes(3).toNanos());
      w.check();
      assertThat(fired).as("a new stall is fired again").hasValue(2);
    }
  }
}
