package dev.specwatch.digest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.testing.HistogramHistory;
import dev.specwatch.testing.PrometheusServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The digest names the day speculation stopped paying at a load: three days of history backfilled
 * into a real Prometheus, loads alternating between 2 and 10 running requests every 30 minutes. At
 * 10 the speculative deployment decodes 44 tokens/s per request on Monday against the plain one's
 * 36 (1.22×, it pays) and 30 from Tuesday on (0.83×, it costs); at 2 it stays at 2×. The history is
 * aligned to its own start (the Monday of the last complete week), not to the wall clock.
 */
class DigestStoppedPayingIT {
  @TempDir Path dir;

  @Test
  void theDigestSaysOnWhichDaySpeculationStoppedPayingAtHighLoad() throws Exception {
    DigestPeriod period = DigestPeriod.lastComplete(Instant.now(), ZoneOffset.UTC);
    Instant start = period.start();
    StringBuilder om = new StringBuilder();
    om.append("# TYPE vllm:generation_tokens counter\n");
    om.append(series(start, "it/spec", true, "tokens"));
    om.append(series(start, "it/plain", false, "tokens"));
    om.append("# TYPE vllm:num_requests_running gauge\n");
    om.append(series(start, "it/spec", true, "running"));
    om.append(series(start, "it/plain", false, "running"));
    om.append("# TYPE vllm:spec_decode_num_drafts counter\n");
    om.append(series(start, "it/spec", true, "drafts"));
    om.append("# TYPE vllm:spec_decode_num_draft_tokens counter\n");
    om.append(series(start, "it/spec", true, "draft_tokens"));
    om.append("# TYPE vllm:spec_decode_num_accepted_tokens counter\n");
    om.append(series(start, "it/spec", true, "accepted"));
    // The finished requests: one a minute a side, 200 generated tokens at the load's speed; spec's
    // prompts 4,000 tokens, plain's 1,000.
    for (String family :
        List.of(
            "request_generation_tokens", "request_decode_time_seconds", "request_prompt_tokens")) {
      om.append("# TYPE vllm:").append(family).append(" histogram\n");
      om.append(finished(start, "it/spec", true, family));
      om.append(finished(start, "it/plain", false, family));
    }
    om.append("# EOF\n");
    try (PrometheusServer prometheus = PrometheusServer.builder().history(om.toString()).start()) {
      Path alerts = dir.resolve("alerts");
      Files.createDirectories(alerts);
      Files.writeString(
          alerts.resolve("spec.yaml"),
          "recipe: spec\nmatch: {job: vllm, model_name: it/spec}\nnum_speculative_tokens: 3\n"
              + "speedup_baseline: plain\n",
          StandardCharsets.UTF_8);
      Files.writeString(
          alerts.resolve("plain.yaml"),
          "recipe: plain\nmatch: {job: vllm, model_name: it/plain}\nnum_speculative_tokens: 0\n",
          StandardCharsets.UTF_8);
      Path config = dir.resolve("specwatch.yaml");
      Files.writeString(
          config,
          "prometheus: {url: \"" + prometheus.baseUri() + "\"}\npolicies: alerts\n",
          StandardCharsets.UTF_8);
      SpecwatchConfig c = new ConfigLoader(k -> null).load(config);
      Digest d =
          new DigestCollector(
                  new PrometheusClient(PrometheusSettings.of(prometheus.baseUri())),
                  Optional.empty(),
                  Clock.fixed(period.end().plus(Duration.ofHours(1)), ZoneOffset.UTC))
              .collect(period, c.policies(), c.baselines(), List.of());
      RecipeWeek.Speedup s = d.recipes().get(0).notes().speedup();
      assertThat(s.stoppedPaying())
          .as(s.toString())
          .isEqualTo("stopped paying above 7 running requests on Tue");
      // Over the week 8-15 breaks even (one day paid, two cost: its interval holds 1), and the
      // digest says so. In one-minute steps (every screen's
      // step) the minutes where the load jumps between 2 and 10 average to 4-7 and form a bucket
      // of their own, which pays (half 2x, half the 8-15 speed): it paid up to 7, not 15.
      assertThat(s.paysUpToRunning()).isEqualTo(7);
      assertThat(new DigestRenderer(Optional.empty()).render(d).text())
          .contains(
              "paid up to 7 running requests; break-even at 8–15 running (the 95 % interval holds"
                  + " 1×); stopped paying above 7 running requests on Tue; the speed-up may be"
                  + " confounded: the two sides' requests differ (4,000 vs 1,000 prompt tokens, 200"
                  + " vs 200 output tokens per finished request), so part of the difference in speed"
                  + " may be the traffic's");
    }
  }

  /**
   * One per-request histogram of one deployment (its +Inf bucket, sum and count), a minute apart.
   */
  private static String finished(Instant start, String model, boolean spec, String family) {
    HistogramHistory h =
        new HistogramHistory("vllm:" + family, "job=\"vllm\",model_name=\"" + model + "\"");
    double total = 0;
    double requests = 0;
    for (long s = 0; s <= Duration.ofDays(3).toSeconds(); s += 60) {
      if (s > 0) {
        requests++;
        int load = (s / 1800) % 2 == 0 ? 2 : 10;
        double speed = spec ? (load == 2 ? 80 : 30) : (load == 2 ? 40 : 36);
        total +=
            switch (family) {
              case "request_generation_tokens" -> 200;
              case "request_decode_time_seconds" -> 199 / speed;
              default -> spec ? 4000 : 1000;
            };
      }
      h.add(start.getEpochSecond() + s, requests, total);
    }
    return h.text();
  }

  /** One series of one deployment, a sample a minute for three days. */
  private static String series(Instant start, String model, boolean spec, String what) {
    String labels = "{job=\"vllm\",model_name=\"" + model + "\"}";
    String name =
        switch (what) {
          case "tokens" -> "vllm:generation_tokens_total";
          case "running" -> "vllm:num_requests_running";
          case "drafts" -> "vllm:spec_decode_num_drafts_total";
          case "draft_tokens" -> "vllm:spec_decode_num_draft_tokens_total";
          default -> "vllm:spec_decode_num_accepted_tokens_total";
        };
    SplittableRandom random = new SplittableRandom(model.hashCode());
    StringBuilder out = new StringBuilder();
    double tokens = 0;
    double noise = 0;
    for (long s = 0; s <= Duration.ofDays(3).toSeconds(); s += 60) {
      int load = (s / 1800) % 2 == 0 ? 2 : 10;
      boolean monday = s < Duration.ofDays(1).toSeconds();
      double speed = spec ? (load == 2 ? 80 : monday ? 44 : 30) : (load == 2 ? 40 : 36);
      noise = 0.5 * noise + 0.03 * random.nextGaussian();
      if (s > 0) {
        tokens += load * speed * 60 * (1 + noise);
      }
      // Mean accepted length 2.8 (acceptance 0.6 of k = 3): a step emits 2.8 tokens.
      double steps = tokens / 2.8;
      double value =
          switch (what) {
            case "tokens" -> tokens;
            case "running" -> load;
            case "drafts" -> steps;
            case "draft_tokens" -> 3 * steps;
            default -> 1.8 * steps;
          };
      out.append(
          String.format(
              Locale.ROOT, "%s%s %.3f %d%n", name, labels, value, start.getEpochSecond() + s));
    }
    return out.toString();
  }
}
