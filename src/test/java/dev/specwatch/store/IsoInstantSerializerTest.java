package dev.specwatch.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link IsoInstantSerializer} writes what {@link Instant#toString()} and jsr310's own serializer
 * write, character for character, and what it writes reads back as the same instant.
 */
class IsoInstantSerializerTest {
  /** jackson-datatype-jsr310 alone, as {@link DurableFiles#JSON} was before. */
  private static final ObjectMapper JSR310 =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  @Property(tries = 5000)
  void writesWhatInstantToStringWrites(@ForAll("instants") Instant t) throws Exception {
    assertThat(DurableFiles.JSON.writeValueAsString(t)).isEqualTo('"' + t.toString() + '"');
    assertThat(DurableFiles.JSON.writeValueAsString(t)).isEqualTo(JSR310.writeValueAsString(t));
    assertThat(DurableFiles.JSON.readValue(DurableFiles.JSON.writeValueAsString(t), Instant.class))
        .isEqualTo(t);
  }

  @Test
  void edgesOfTheCalendarAndOfTheFastPath() throws Exception {
    for (String text :
        List.of(
            "0000-01-01T00:00:00Z",
            "0000-02-29T23:59:59.999999999Z",
            "0001-01-01T00:00:00Z",
            "1582-10-15T00:00:00Z",
            "1899-12-31T23:59:59Z",
            "1900-02-28T12:00:00Z",
            "1900-03-01T00:00:00Z",
            "1969-12-31T23:59:59.999Z",
            "1970-01-01T00:00:00Z",
            "1970-01-01T00:00:00.000001Z",
            "2000-02-29T00:00:00Z",
            "2024-02-29T23:59:59.5Z",
            "2026-12-01T00:00:30.123456789Z",
            "2100-03-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z",
            "+10000-01-01T00:00:00Z",
            "-0001-12-31T23:59:59Z",
            "-1000000000-01-01T00:00:00Z",
            "+1000000000-12-31T23:59:59.999999999Z")) {
      Instant t = Instant.parse(text);
      assertThat(DurableFiles.JSON.writeValueAsString(t))
          .as(text)
          .isEqualTo('"' + t.toString() + '"');
    }
    // the fraction in 0, 3, 6 or 9 digits, as ISO_INSTANT writes it
    assertThat(DurableFiles.JSON.writeValueAsString(Instant.parse("2026-12-01T00:00:00.120Z")))
        .isEqualTo("\"2026-12-01T00:00:00.120Z\"");
    assertThat(DurableFiles.JSON.writeValueAsString(Instant.ofEpochSecond(0, 1_000)))
        .isEqualTo("\"1970-01-01T00:00:00.000001Z\"");
    assertThat(DurableFiles.JSON.writeValueAsString(Instant.ofEpochSecond(0, 1)))
        .isEqualTo("\"1970-01-01T00:00:00.000000001Z\"");
  }

  @Test
  void instantsInsideObjectsListsAndMapsAndTheCompactWriter() throws Exception {
    Instant t = Instant.parse("2026-12-01T00:00:30.000000123Z");
    Map<String, Object> value = Map.of("at", t, "steps", List.of(t, t.plusSeconds(30)));
    assertThat(DurableFiles.COMPACT.writeValueAsString(value))
        .isEqualTo(JSR310.writeValueAsString(value));
    assertThat(DurableFiles.utf8(value).readUtf8()).isEqualTo(JSR310.writeValueAsString(value));
  }

  @Provide
  Arbitrary<Instant> instants() {
    Arbitrary<Long> seconds =
        Arbitraries.oneOf(
            // around the fast path's ends and across the whole range Instant allows
            Arbitraries.longs().between(-62_167_219_200L - 100_000, -62_167_219_200L + 100_000),
            Arbitraries.longs().between(253_402_300_800L - 100_000, 253_402_300_800L + 100_000),
            Arbitraries.longs().between(-62_167_219_200L, 253_402_300_800L),
            Arbitraries.longs().between(Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond()),
            // this century, where the daemon's clock lives
            Arbitraries.longs().between(946_684_800L, 4_102_444_800L));
    Arbitrary<Integer> nanos =
        Arbitraries.oneOf(
            Arbitraries.just(0),
            Arbitraries.integers().between(0, 999).map(ms -> ms * 1_000_000),
            Arbitraries.integers().between(0, 999_999).map(us -> us * 1000),
            Arbitraries.integers().between(0, 999_999_999));
    return seconds.flatMap(s -> nanos.map(n -> Instant.ofEpochSecond(s, n)));
  }
}
