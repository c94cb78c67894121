package dev.specwatch.digest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.specwatch.alerting.Transition;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.Engine;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.sim.ModelScenario;
import dev.specwatch.sim.Phase;
import dev.specwatch.sim.Scenario;
import dev.specwatch.sim.Simulator;
import dev.specwatch.testing.PrometheusServer;
import dev.specwatch.testing.Transitions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The digest of a week in progress for a recipe half an hour old (docs/DIGEST.md): every figure
 * agrees with the others. The week is a fixed one (its Wednesday 10:30 is "now"), the history
 * starts 30 minutes before, aligned to its own start; nothing depends on the wall clock.
 */
class DigestDayOneIT {
  @TempDir Path dir;

  @Test
  void aRecipeMinutesOldInAWeekInProgressReadsConsistently() throws Exception {
    DigestPeriod period = DigestPeriod.of(LocalDate.of(2026, 11, 23), ZoneOffset.UTC);
    Instant now = period.start().plus(Duration.ofDays(2)).plus(Duration.ofMinutes(630));
    Instant from = now.minus(Duration.ofMinutes(30));
    String history = healthyHistory("org/new-model", from, now);
    try (PrometheusServer prometheus = PrometheusServer.builder().history(history).start()) {
      SpecwatchConfig c =
          config(
              prometheus,
              Map.of(
                  "new.yaml",
                  "recipe: new-model\nmatch: {model_name: org/new-model}\nnum_speculative_tokens:"
                      + " 3\n",
                  "typo.yaml",
                  "recipe: typo\nmatch: {model_name: org/new-modle}\nnum_speculative_tokens: 3\n",
                  "sg.yaml",
                  "recipe: sg\nengine: sglang\nmatch: {model_name: org/sg}\n"
                      + "num_speculative_tokens: 3\n"));
      // Two firings of seconds: 59 s and 55 s.
      List<Transition> alerts1 =
          List.of(
              Transitions.acceptanceOf(
                  "new-model", 1, Transition.Kind.FIRING, now.minus(Duration.ofMinutes(20))),
              Transitions.acceptanceOf(
                  "new-model",
                  2,
                  Transition.Kind.RESOLVED,
                  now.minus(Duration.ofMinutes(20)).plusSeconds(59)),
              Transitions.acceptanceOf(
                  "new-model", 3, Transition.Kind.FIRING, now.minus(Duration.ofMinutes(10))),
              Transitions.acceptanceOf(
                  "new-model",
                  4,
                  Transition.Kind.RESOLVED,
                  now.minus(Duration.ofMinutes(10)).plusSeconds(55)));
      Digest d =
          new DigestCollector(
                  new PrometheusClient(PrometheusSettings.of(prometheus.baseUri())),
                  Optional.empty(),
                  Clock.fixed(now, ZoneOffset.UTC))
              .collect(period, c.policies(), c.baselines(), alerts1);
      RecipeWeek r = recipe(d, "new-model");

      // Drafts every slice it existed in: not idle, and the share says of what.
      assertThat(r.draftTokens()).isPositive();
      assertThat(r.idleShare()).isEqualTo(0.0);
      assertThat(r.notes().observed()).isBetween(Duration.ofMinutes(25), Duration.ofMinutes(30));
      // Today is drawn, marked partial; the days before it have no data, after it none yet.
      RecipeWeek.Day wednesday = r.daily().get(2);
      assertThat(wednesday.partial()).isTrue();
      assertThat(wednesday.acceptanceRate()).isCloseTo(0.7, within(0.01));
      assertThat(r.daily().get(1).acceptanceRate()).isNull();
      assertThat(r.daily().get(3).partial()).isFalse();
      assertThat(r.alertsFired()).isEqualTo(2);
      assertThat(r.firingTotal()).isEqualTo(Duration.ofSeconds(114));
      assertThat(r.firingLongest()).isEqualTo(Duration.ofSeconds(59));

      DigestRenderer.Rendered rendered = new DigestRenderer(Optional.empty()).render(d);
      String text = rendered.text();
      // The daily chart draws today, labelled "(so far)" (kept to look at).
      Files.createDirectories(Path.of("target/digest"));
      for (Map.Entry<String, byte[]> image : rendered.images().entrySet()) {
        Files.write(Path.of("target/digest/day-one-" + image.getKey() + ".png"), image.getValue());
      }
      assertThat(rendered.images()).isNotEmpty();
      assertThat(text)
          .contains("idle                   0.0 % of the 30m it was observed")
          .contains("it was observed (of the week so far)")
          .contains("WED (so far) 70.0 %")
          .contains("2 fired, firing 1m54s in total, longest 59s")
          .doesNotContain("100.0 %");
      // No data: a typo in the match, and an engine Prometheus holds nothing of, are told apart.
      assertThat(recipe(d, "typo").notes().noDataReason())
          .startsWith("the match selects none of the vllm:generation_tokens_total series");
      assertThat(recipe(d, "sg").notes().noDataReason())
          .startsWith("Prometheus holds no sglang:generation_tokens_total series at all")
          .doesNotContain("check the policy's match labels");
      assertThat(text).contains("NO DATA: no speculative-decoding series all week (not idleness)");
    }
  }

  @Test
  void theWeeksFirstMinutesAndHourAskPrometheusNothingItRejects() throws Exception {
    // A preview on a Monday just after midnight: the week so far is minutes long. Before, the
    // hourly range (from the week's start plus an hour to now) and the 5-minute slices ended
    // before they started, and Prometheus rejected them ("end timestamp must not be before start
    // time"), so `specwatch digest --dry-run` failed for the first hour of every week.
    DigestPeriod period = DigestPeriod.of(LocalDate.of(2026, 11, 23), ZoneOffset.UTC);
    Instant from = period.start().minus(Duration.ofMinutes(30));
    Instant to = period.start().plus(Duration.ofMinutes(40));
    String history = healthyHistory("org/monday", from, to);
    try (PrometheusServer prometheus = PrometheusServer.builder().history(history).start()) {
      SpecwatchConfig c =
          config(
              prometheus,
              Map.of(
                  "monday.yaml",
                  "recipe: monday\nmatch: {model_name: org/monday}\nnum_speculative_tokens: 3\n"));
      for (Duration into : List.of(Duration.ofMinutes(3), Duration.ofMinutes(30))) {
        Digest d =
            new DigestCollector(
                    new PrometheusClient(PrometheusSettings.of(prometheus.baseUri())),
                    Optional.empty(),
                    Clock.fixed(period.start().plus(into), ZoneOffset.UTC))
                .collect(period, c.policies(), c.baselines(), List.of());
        RecipeWeek r = recipe(d, "monday");
        assertThat(r.notes().noDataReason()).as(into.toString()).isNull();
        RecipeWeek.Day monday = r.daily().get(0);
        assertThat(monday.partial()).as(into.toString()).isTrue();
        assertThat(monday.acceptanceRate()).as(into.toString()).isCloseTo(0.7, within(0.02));
        String text = new DigestRenderer(Optional.empty()).render(d).text();
        assertThat(text).as(into.toString()).contains("MON (so far) 70");
      }
    }
  }

  /**
   * One healthy vLLM model's history (acceptance 0.7 over three positions), aligned to its own
   * start.
   */
  private static String healthyHistory(String model, Instant from, Instant to) {
    Scenario scenario =
        new Scenario(
            "day-one",
            List.of(
                new ModelScenario(
                    model,
                    Engine.VLLM,
                    1,
                    List.of(
                        new Phase(
                            "healthy", null, 2, 256, 1024, 3, List.of(0.9, 0.7, 0.5), false, 12.8)),
                    false)));
    return new Simulator(scenario, Clock.fixed(from, ZoneOffset.UTC))
        .openMetricsHistory(from, to, Duration.ofSeconds(15), "vllm");
  }

  /**
   * A config reading {@code prometheus} with the policies {@code policies} (file name to text) in
   * its alerts directory, loaded.
   */
  private SpecwatchConfig config(PrometheusServer prometheus, Map<String, String> policies)
      throws Exception {
    Path alerts = Files.createDirectories(dir.resolve("alerts"));
    for (Map.Entry<String, String> p : policies.entrySet()) {
      Files.writeString(alerts.resolve(p.getKey()), p.getValue());
    }
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(
        config, "prometheus: {url: \"" + prometheus.baseUri() + "\"}\npolicies: alerts\n");
    return new ConfigLoader(k -> null).load(config);
  }

  private static RecipeWeek recipe(Digest d, String name) {
    return d.recipes().stream().filter(x -> x.recipe().equals(name)).findFirst().orElseThrow();
  }
}
