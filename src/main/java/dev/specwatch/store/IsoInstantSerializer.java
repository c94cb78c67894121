package dev.specwatch.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Writes an {@link Instant} as {@link Instant#toString()} does ({@code
 * DateTimeFormatter.ISO_INSTANT}: {@code 2026-12-01T00:00:30.123Z}, the fraction in 0, 3, 6 or 9
 * digits), the very characters, without the formatter.
 *
 * <p>The state of 10,000 recipes with learned change detection holds about 200,000 instants and is
 * saved after every evaluation; formatting them through {@code ISO_INSTANT} was about a third of
 * what the save allocated (docs/PERFORMANCE.md, "Saving the state", 2026-12-06). Years outside
 * 0000–9999 take {@link Instant#toString()}. Reading is unchanged (jackson-datatype-jsr310).
 */
final class IsoInstantSerializer extends StdSerializer<Instant> {
  private static final long serialVersionUID = 1L;

  /** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z in epoch seconds. */
  private static final long FIRST = -62_167_219_200L;

  private static final long END = 253_402_300_800L;

  private static final ThreadLocal<char[]> BUFFER = ThreadLocal.withInitial(() -> new char[32]);

  IsoInstantSerializer() {
    super(Instant.class);
  }

  @Override
  public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider)
      throws IOException {
    char[] buf = BUFFER.get();
    int n = format(value, buf);
    if (n < 0) {
      gen.writeString(value.toString());
    } else {
      gen.writeString(buf, 0, n);
    }
  }

  /**
   * Writes {@code t} as {@link Instant#toString()} would into {@code buf} (at least 30 chars) and
   * returns the length, or -1 for a year outside 0000–9999.
   */
  static int format(Instant t, char[] buf) {
    long seconds = t.getEpochSecond();
    if (seconds < FIRST || seconds >= END) {
      return -1;
    }
    LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, 86_400L));
    int ofDay = (int) Math.floorMod(seconds, 86_400L);
    int i = 0;
    i = digits(buf, i, date.getYear(), 4);
    buf[i++] = '-';
    i = digits(buf, i, date.getMonthValue(), 2);
    buf[i++] = '-';
    i = digits(buf, i, date.getDayOfMonth(), 2);
    buf[i++] = 'T';
    i = digits(buf, i, ofDay / 3600, 2);
    buf[i++] = ':';
    i = digits(buf, i, ofDay / 60 % 60, 2);
    buf[i++] = ':';
    i = digits(buf, i, ofDay % 60, 2);
    int nano = t.getNano();
    if (nano > 0) {
      buf[i++] = '.';
      if (nano % 1_000_000 == 0) {
        i = digits(buf, i, nano / 1_000_000, 3);
      } else if (nano % 1000 == 0) {
        i = digits(buf, i, nano / 1000, 6);
      } else {
        i = digits(buf, i, nano, 9);
      }
    }
    buf[i++] = 'Z';
    return i;
  }

  /** {@code value} (not negative) in exactly {@code width} decimal digits, zero-padded. */
  private static int digits(char[] buf, int at, int value, int width) {
    for (int j = at + width - 1; j >= at; j--) {
      buf[j] = (char) ('0' + value % 10);
      value /= 10;
    }
    return at + width;
  }
}
