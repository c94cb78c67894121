package dev.specwatch.server;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Slows down guessing the bearer token, on {@code /login} and on the API alike: a client (a remote
 * address) has {@link #FREE} wrong tokens, then each further one locks it out for twice as long as
 * the last, from 1 s up to {@link #LONGEST}; while locked out even the right token is refused (429
 * with Retry-After), so guessing gains nothing by being fast. The right token clears the client; a
 * client silent for {@link #FORGET} starts afresh. At most {@link #CLIENTS} clients are remembered
 * (the oldest are forgotten first), so many addresses cannot grow the memory.
 *
 * <p>Behind a reverse proxy every client is the proxy: one guesser then locks everybody out for as
 * long as it keeps guessing, which is the safe side (docs/OPERATIONS.md).
 */
final class LoginThrottle {
  static final int FREE = 10;
  static final Duration LONGEST = Duration.ofMinutes(5);
  static final Duration FORGET = Duration.ofMinutes(15);
  static final int CLIENTS = 4096;

  private record Failures(int count, Instant last, Instant lockedUntil) {}

  private final Map<String, Failures> clients =
      new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Failures> eldest) {
          return size() > CLIENTS;
        }
      };

  /** How long {@code client} must still wait, or empty when it may try. */
  synchronized Optional<Duration> locked(String client, Instant now) {
    Failures f = clients.get(client);
    if (f == null || f.lockedUntil() == null || !now.isBefore(f.lockedUntil())) {
      return Optional.empty();
    }
    return Optional.of(Duration.between(now, f.lockedUntil()));
  }

  synchronized void failed(String client, Instant now) {
    Failures f = clients.get(client);
    int count = f == null || f.last().plus(FORGET).isBefore(now) ? 1 : f.count() + 1;
    Instant until = null;
    if (count > FREE) {
      long seconds = 1L << Math.min(20, count - FREE - 1);
      until = now.plus(Duration.ofSeconds(Math.min(seconds, LONGEST.toSeconds())));
    }
    clients.put(client, new Failures(count, now, until));
  }

  synchronized void succeeded(String client) {
    clients.remove(client);
  }
}
