package dev.specwatch.prometheus;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * How much of a datasource's answer may be read, and the stream that stops there. The answer is
 * parsed as it streams (never held whole), and the limit is the configured {@code
 * max_response_size} or an eighth of the heap, whichever is smaller: what the answer becomes once
 * parsed (labels and points as objects, about twice the JSON) then fits the heap with room for
 * everything else. Under the shipped {@code -Xmx128m} that is 16 MiB; before, a 40 MiB answer was
 * read into a byte array, copied, and parsed, and the daemon died of OutOfMemoryError.
 */
final class BodyLimit {
  private BodyLimit() {}

  /** The limit in bytes for a configured {@code max_response_size} in this JVM. */
  static long effective(long configured) {
    return Math.min(configured, Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 8));
  }

  /** Thrown by {@link #limited} when the answer goes past the limit. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("over the response size limit");
    }
  }

  /** {@code in}, failing with {@link TooLarge} once more than {@code limit} bytes were read. */
  static InputStream limited(InputStream in, long limit) {
    return new FilterInputStream(in) {
      private long read;

      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          count(1);
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
          count(n);
        }
        return n;
      }

      private void count(long n) throws TooLarge {
        read += n;
        if (read > limit) {
          throw new TooLarge();
        }
      }
    };
  }
}
