package dev.specwatch.server;

import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * How many HTTP workers API and UI requests may hold at once. The rest stay free for {@code
 * /healthz}, {@code /readyz} and {@code /metrics}, which answer from memory, so a stalled state
 * store (a table lock, a database that accepts connections and never answers) cannot starve a
 * liveness probe into restarting every replica. A request that finds no permit gets 503 with {@code
 * Retry-After} at once (waiting would hold a worker too).
 */
final class ViewPermits {
  private final Semaphore permits;
  private final int size;

  ViewPermits(int size) {
    this.size = size;
    this.permits = new Semaphore(size);
  }

  Response run(Supplier<Response> view) {
    // No waiting for a permit: a request waiting would hold a worker itself.
    if (!permits.tryAcquire()) {
      return Response.text(
              503,
              "busy: "
                  + size
                  + " requests are waiting on the state store; retry shortly (/readyz says why)\n")
          .withHeader("Retry-After", "5");
    }
    try {
      return view.get();
    } finally {
      permits.release();
    }
  }
}
