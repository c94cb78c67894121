package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/SPEEDUP.md's claim for {@code thresholds.speedup}: the figure is recomputed at most every 5
 * minutes (two range queries a recipe, here one fetch of both sides), over the trailing {@code
 * over}. The history is a stub recording each fetch: what is tested is when the readings fetch, not
 * the measurement (SpeedupIT runs that against a real Prometheus).
 */
class SpeedupReadingsRefreshTest {
  private static final Instant AT = Instant.parse("2026-11-30T12:00:00Z");
  @TempDir Path dir;

  private record Fetch(List<String> recipes, Instant from, Instant to) {}

  @Test
  void theFigureIsFetchedOnceEveryFiveMinutesOverItsTrailingWindow() throws Exception {
    SpecwatchConfig c = config();
    List<Fetch> fetches = new ArrayList<>();
    SpeedupReadings readings =
        new SpeedupReadings(
            (recipes, from, to) -> {
              fetches.add(new Fetch(recipes.stream().map(Policy::recipe).toList(), from, to));
              Map<String, List<SpeedupByLoad.Step>> out = new HashMap<>();
              for (Policy p : recipes) {
                boolean spec = p.numSpeculativeTokens() > 0;
                List<SpeedupByLoad.Step> steps = new ArrayList<>();
                for (int i = 0; i < 360; i++) {
                  double noise = 1 + 0.02 * Math.sin(i * 0.7);
                  steps.add(new SpeedupByLoad.Step(4 * (spec ? 60 : 40) * noise, 4));
                }
                out.put(p.recipe(), steps);
              }
              return out;
            },
            c.recipes());

    Double first = readings.read(c.policies(), AT).get("mtp");
    assertThat(first).isCloseTo(1.5, org.assertj.core.api.Assertions.within(0.05));
    assertThat(fetches)
        .containsExactly(new Fetch(List.of("mtp", "plain"), AT.minus(Duration.ofHours(6)), AT));
    // The reading says its bucket's verdict with the figure, as every screen words it; the stub
    // knows no finished requests, so nothing is said of the traffic.
    assertThat(readings.verdict("mtp").orElseThrow())
        .matches(
            "pays \\(1\\.[45][0-9]× per request at 4–7 running requests, 95 % [0-9.]+–[0-9.]+\\)");
    assertThat(readings.confounded("mtp")).isEmpty();

    for (int s = 30; s < 300; s += 30) {
      assertThat(readings.read(c.policies(), AT.plusSeconds(s)).get("mtp")).isEqualTo(first);
    }
    assertThat(fetches).as("no fetch within 5 minutes").hasSize(1);

    Instant later = AT.plus(SpeedupReadings.REFRESH);
    readings.read(c.policies(), later);
    assertThat(fetches).hasSize(2);
    assertThat(fetches.get(1).to()).isEqualTo(later);

    // A clock that stepped back (or a replay starting over) is never served a reading from its
    // future.
    readings.read(c.policies(), AT.plusSeconds(60));
    assertThat(fetches).hasSize(3);
  }

  private SpecwatchConfig config() throws Exception {
    Path alerts = dir.resolve("alerts");
    Files.createDirectories(alerts);
    Files.writeString(
        alerts.resolve("mtp.yaml"),
        "recipe: mtp\nmatch: {model_name: q}\nnum_speculative_tokens: 3\n"
            + "speedup_baseline: plain\nthresholds: {speedup: {below: 1.1, over: 6h}}\n");
    Files.writeString(
        alerts.resolve("plain.yaml"),
        "recipe: plain\nmatch: {model_name: q-plain}\nnum_speculative_tokens: 0\n");
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(config, "prometheus: {url: \"http://127.0.0.1:9\"}\npolicies: alerts\n");
    return new ConfigLoader(k -> null).load(config);
  }
}
