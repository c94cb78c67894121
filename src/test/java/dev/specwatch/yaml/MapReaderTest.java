package dev.specwatch.yaml;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MapReaderTest {
  private final Problems problems = new Problems();

  private MapReader read(String yaml, Map<String, String> env) {
    YamlNode root = new YamlParser("cfg.yaml", problems, env::get).parse(yaml).orElseThrow();
    return MapReader.of(root, "", problems, Path.of(".")).orElseThrow();
  }

  @Test
  void reportsEveryProblemWithFileLineColumnAndKeyPath() {
    MapReader r = read("evaluation:\n  interval: soon\n  windw: 5m\nname: x\nname: y\n", Map.of());
    MapReader evaluation = r.map("evaluation").orElseThrow();
    evaluation.duration("interval", Duration.ofSeconds(30));
    evaluation.duration("window", Duration.ofMinutes(5));
    evaluation.finish();
    r.string("name", "");
    r.finish();

    assertThat(problems.sorted())
        .extracting(Problem::toString)
        .containsExactly(
            "cfg.yaml:2:13: evaluation.interval: expected a duration like 30s, 5m, 1h or 7d, got"
                + " 'soon'",
            "cfg.yaml:3:3: evaluation.windw: unknown key (did you mean 'window'?)",
            "cfg.yaml:5:1: name: duplicate key (first set at line 4)");
  }

  @Test
  void interpolatesEnvironmentStrictly() {
    MapReader r =
        read("url: http://${HOST}:9090\nprice: $$5\nmissing: ${NOPE}\n", Map.of("HOST", "prom"));
    assertThat(r.string("url", "")).isEqualTo("http://prom:9090");
    assertThat(r.string("price", "")).isEqualTo("$5");
    r.string("missing", "");
    assertThat(problems.sorted())
        .extracting(Problem::toString)
        .containsExactly("cfg.yaml:3:10: missing: environment variable NOPE is not set");
  }

  @Test
  void aDefaultStandsInForAnUnsetOrEmptyVariable() {
    MapReader r =
        read(
            "listen: \"0.0.0.0:${PORT:-9464}\"\nhost: ${HOST:-prom}\nempty: ${EMPTY:-x}\n",
            Map.of("HOST", "vm", "EMPTY", ""));
    assertThat(r.string("listen", "")).isEqualTo("0.0.0.0:9464");
    assertThat(r.string("host", "")).isEqualTo("vm");
    assertThat(r.string("empty", "")).isEqualTo("x");
    assertThat(problems.sorted()).isEmpty();
  }

  @Test
  void numbersOutsideTheirRangeAreErrors() {
    MapReader r = read("rate: 1.5\nk: zero\n", Map.of());
    assertThat(r.number("rate", 0.5, 0, 1)).isEqualTo(0.5);
    assertThat(r.integer("k", 1, 1, 10)).isEqualTo(1);
    assertThat(problems.sorted())
        .extracting(Problem::message)
        .containsExactly("must be between 0 and 1, got 1.5", "expected a whole number, got 'zero'");
  }

  @Test
  void syntaxErrorIsOneProblemWithItsLocation() {
    new YamlParser("bad.yaml", problems, null).parse("a: [1, 2\nb: c\n");
    assertThat(problems.sorted()).hasSize(1);
    assertThat(problems.sorted().get(0).toString())
        .startsWith("bad.yaml:")
        .contains("not valid YAML");
  }

  @Test
  void suggestsOnlyCloseKeys() {
    assertThat(MapReader.closest("windw", Set.of("window", "interval"))).contains("window");
    assertThat(MapReader.closest("zzzzzz", Set.of("window", "interval"))).isEmpty();
  }

  /**
   * The pruned search (length filter, a distance that stops past the best so far) picks what the
   * plain definition picks: the first candidate at the smallest full Levenshtein distance, if
   * within max(2, length / 3). Random keys and candidates over a small alphabet, so near misses
   * abound.
   */
  @Test
  void theClosestCandidateIsTheOneThePlainDefinitionPicks() {
    java.util.Random random = new java.util.Random(20261203);
    for (int round = 0; round < 2_000; round++) {
      String key = word(random);
      java.util.List<String> candidates = new java.util.ArrayList<>();
      int n = random.nextInt(30);
      for (int i = 0; i < n; i++) {
        candidates.add(
            random.nextInt(4) == 0 ? key.toUpperCase(java.util.Locale.ROOT) : word(random));
      }
      String best = null;
      int bestDistance = Integer.MAX_VALUE;
      for (String c : candidates) {
        int d =
            plainDistance(
                key.toLowerCase(java.util.Locale.ROOT), c.toLowerCase(java.util.Locale.ROOT));
        if (d < bestDistance) {
          best = c;
          bestDistance = d;
        }
      }
      java.util.Optional<String> expected =
          bestDistance <= Math.max(2, key.length() / 3)
              ? java.util.Optional.of(best)
              : java.util.Optional.empty();
      assertThat(MapReader.closest(key, candidates))
          .as(key + " among " + candidates)
          .isEqualTo(expected);
      for (String c : candidates) {
        assertThat(MapReader.distance(key, c)).isEqualTo(plainDistance(key, c));
      }
    }
  }

  private static String word(java.util.Random random) {
    StringBuilder b = new StringBuilder();
    int length = 1 + random.nextInt(12);
    for (int i = 0; i < length; i++) {
      b.append("abc-/".charAt(random.nextInt(5)));
    }
    return b.toString();
  }

  /** Levenshtein by its recursive definition, memoised. */
  private static int plainDistance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      for (int j = 0; j <= b.length(); j++) {
        d[i][j] =
            i == 0
                ? j
                : j == 0
                    ? i
                    : Math.min(
                        Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1),
                        d[i - 1][j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
      }
    }
    return d[a.length()][b.length()];
  }

  @Test
  void durationsReadAndPrintLikePrometheus() {
    assertThat(Durations.parse("1h30m")).contains(Duration.ofMinutes(90));
    assertThat(Durations.parse("7d")).contains(Duration.ofDays(7));
    assertThat(Durations.parse("500ms")).contains(Duration.ofMillis(500));
    assertThat(Durations.parse("5")).isEmpty();
    assertThat(Durations.parse("5m1h")).isEmpty();
    assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
    assertThat(Durations.format(Duration.ofDays(7))).isEqualTo("1w");
  }
}
