package dev.specwatch.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Sample values are parsed from the JSON parser's buffer ({@link ResponseParser#parseValue(char[],
 * int, int)}) with Jackson's FastDoubleParser: it must give the very double, or the very error,
 * that {@link Double#parseDouble} on a string gives.
 */
class ResponseParserTest {

  @Property(tries = 3000)
  void anyDoubleInEveryFormPrometheusWritesReadsBackBitForBit(@ForAll double value) {
    String[] forms = {
      Double.toString(value),
      // Go's strconv.FormatFloat(v, 'f', -1, 64), what Prometheus writes: plain, shortest
      Double.isFinite(value) ? new BigDecimal(Double.toString(value)).toPlainString() : "NaN",
      String.format(java.util.Locale.ROOT, "%.17e", value),
      String.format(java.util.Locale.ROOT, "%.3f", value)
    };
    for (String text : forms) {
      assertSame(text);
    }
  }

  @Property(tries = 3000)
  void anyTextGivesTheSameValueOrTheSameError(@ForAll("numberish") String text) {
    assertSame(text);
  }

  @Provide
  Arbitrary<String> numberish() {
    return Arbitraries.strings().withChars("0123456789.eE+-xXpPdDfFInNaAyt ").ofMaxLength(24);
  }

  @Test
  void prometheusSpecialValues() {
    assertThat(fromBuffer("NaN")).isNaN();
    assertThat(fromBuffer("+Inf")).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(fromBuffer("Inf")).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(fromBuffer("-Inf")).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(fromBuffer("0.7999999999999999")).isEqualTo(0.7999999999999999);
    assertThat(fromBuffer("1e-320")).isEqualTo(1e-320);
  }

  @Test
  void aValueThatIsNotANumberIsABadResponseNamingIt() {
    assertThatThrownBy(() -> fromBuffer("0.8x"))
        .isInstanceOf(ResponseParser.MalformedResponse.class)
        .hasMessage("sample value \"0.8x\" is not a number");
    assertThatThrownBy(() -> fromBuffer(""))
        .isInstanceOf(ResponseParser.MalformedResponse.class)
        .hasMessage("sample value \"\" is not a number");
  }

  @Test
  void aVectorsSamplesShareTheirTimestampsInstantAndKeepTheirOwnWhenTheyDiffer() throws Exception {
    String body =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
            + "{\"metric\":{\"a\":\"1\"},\"value\":[1764547200.123,\"1\"]},"
            + "{\"metric\":{\"a\":\"2\"},\"value\":[1764547200.123,\"2\"]},"
            + "{\"metric\":{\"a\":\"3\"},\"value\":[1764547230,\"3\"]},"
            + "{\"metric\":{\"a\":\"4\"},\"value\":[1764547200.123,\"4\"]}]}}";
    var samples =
        ((QueryResult.Vector)
                ResponseParser.parse(
                        ResponseParser.limitedTo(1 << 20),
                        new java.io.ByteArrayInputStream(
                            body.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                    .result())
            .samples();
    assertThat(samples)
        .extracting(Sample::time)
        .containsExactly(
            java.time.Instant.parse("2025-12-01T00:00:00.123Z"),
            java.time.Instant.parse("2025-12-01T00:00:00.123Z"),
            java.time.Instant.parse("2025-12-01T00:00:30Z"),
            java.time.Instant.parse("2025-12-01T00:00:00.123Z"));
    assertThat(samples.get(1).time()).isSameAs(samples.get(0).time());
    assertThat(samples).extracting(Sample::value).containsExactly(1.0, 2.0, 3.0, 4.0);
  }

  /** The value sits inside a larger buffer, as it does in the parser's. */
  private static double fromBuffer(String text) {
    char[] buffer = ("[\"" + text + "\"]").toCharArray();
    return ResponseParser.parseValue(buffer, 2, text.length());
  }

  private static void assertSame(String text) {
    Object expected;
    try {
      expected = Double.doubleToRawLongBits(ResponseParser.parseValue(text));
    } catch (ResponseParser.MalformedResponse e) {
      expected = e.getMessage();
    }
    Object actual;
    try {
      actual = Double.doubleToRawLongBits(fromBuffer(text));
    } catch (ResponseParser.MalformedResponse e) {
      actual = e.getMessage();
    }
    assertThat(actual).as("\"%s\"", text).isEqualTo(expected);
  }
}
