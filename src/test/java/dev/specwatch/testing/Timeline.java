package dev.specwatch.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;

/**
 * Evaluations at fixed points of a scenario's timeline, run once Prometheus has scraped the whole
 * scenario: what an evaluation at offset t decides depends on the data up to t, never on how fast
 * the machine ran the loop or what else it was doing. Offsets asserted on are offsets of the data.
 */
public final class Timeline {
  private Timeline() {}

  /**
   * Waits until the fleet's simulator has played {@code length} of its scenario and Prometheus
   * holds a scrape of job {@code vllm} at or after that point.
   */
  public static void awaitScraped(Fleet fleet, Duration length) throws InterruptedException {
    Instant end = fleet.startedAt().plus(length);
    long wait = Duration.between(Instant.now(), end).toMillis();
    if (wait > 0) {
      Thread.sleep(wait); // the scenario playing out, not synchronisation
    }
    PromApi api = fleet.api();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> api.scalar("max(timestamp(up{job=\"vllm\"}))") >= end.getEpochSecond());
  }

  /** Calls {@code step} at every {@code interval} from {@code interval} to {@code length}. */
  public static void everyStep(
      MutableClock clock, Instant start, Duration interval, Duration length, Step step)
      throws Exception {
    for (Duration t = interval; t.compareTo(length) <= 0; t = t.plus(interval)) {
      clock.set(start.plus(t));
      step.run();
    }
  }

  /** One evaluation. */
  @FunctionalInterface
  public interface Step {
    void run() throws Exception;
  }
}
