package dev.specwatch.prometheus;

/**
 * How much of a datasource's answer may be read. The answer is parsed as it streams (never held
 * whole; Jackson's document length constraint stops the parse at the limit: {@link
 * ResponseParser#limitedTo}), and the limit is the configured {@code max_response_size} or an
 * eighth of the heap, whichever is smaller: what the answer becomes once parsed (labels and points
 * as objects, about twice the JSON) then fits the heap with room for everything else. Under the
 * shipped {@code -Xmx128m} that is 16 MiB; before, a 40 MiB answer was read into a byte array,
 * copied, and parsed, and the daemon died of OutOfMemoryError.
 */
final class BodyLimit {
  private BodyLimit() {}

  /** The limit in bytes for a configured {@code max_response_size} in this JVM. */
  static long effective(long configured) {
    return Math.min(configured, Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 8));
  }
}
