package dev.specwatch.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.schedule.DaemonAccess;
import dev.specwatch.sim.ScenarioLoader;
import dev.specwatch.sim.Simulator;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.HeadlessChromium;
import dev.specwatch.testing.PrometheusServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The recipe page charts the measured speed-up by load (docs/SPEEDUP.md), in Debian's Chromium: a
 * day of the simulator's step-time history (an EAGLE deployment and the same model without
 * speculation, through 1 to 32 running requests) backfilled into a real Prometheus, the daemon
 * serving the page. The screenshot goes to target/ui/recipe-speedup.png.
 */
class SpeedupPageIT {
  @TempDir Path dir;

  private static String model(String name, int k) {
    StringBuilder m = new StringBuilder();
    m.append("  - model_name: ").append(name).append("\n    num_speculative_tokens: ").append(k);
    m.append(
        "\n    repeat: true\n    step_time: {base_ms: 12, per_token_ms: 0.6, draft_ms: 1.5}\n");
    m.append("    phases:\n");
    for (int load : new int[] {1, 2, 4, 8, 16, 32}) {
      m.append("      - {duration: 40m, running_requests: ").append(load);
      m.append(k > 0 ? ", position_acceptance: [0.8, 0.6, 0.4]}\n" : "}\n");
    }
    return m.toString();
  }

  /**
   * The history with vLLM's per-request histograms of both deployments (which the simulator's
   * history does not write): a request of 200 generated tokens finishing every 30 s on each, with
   * 3,000 prompt tokens on it/eagle and 1,000 on it/eagle-plain. Only their _sum and _count are
   * read (FinishedRequests).
   */
  private static String withFinishedRequests(String history, Instant start, Instant end) {
    StringBuilder om = new StringBuilder(history.substring(0, history.lastIndexOf("# EOF")));
    for (String family :
        List.of(
            "request_generation_tokens", "request_decode_time_seconds", "request_prompt_tokens")) {
      om.append("# TYPE vllm:").append(family).append(" histogram\n");
      for (String model : List.of("it/eagle", "it/eagle-plain")) {
        dev.specwatch.testing.HistogramHistory h =
            new dev.specwatch.testing.HistogramHistory(
                "vllm:" + family, "job=\"vllm\",engine=\"0\",model_name=\"" + model + "\"");
        double each =
            switch (family) {
              case "request_generation_tokens" -> 200;
              case "request_decode_time_seconds" -> 199 / 40.0;
              default -> model.equals("it/eagle") ? 3000 : 1000;
            };
        double n = 0;
        for (Instant t = start; !t.isAfter(end); t = t.plusSeconds(30), n++) {
          h.add(t.getEpochSecond(), n, n * each);
        }
        om.append(h.text());
      }
    }
    return om.append("# EOF\n").toString();
  }

  @Test
  void theRecipePageChartsTheSpeedUpByLoadAndWhereItStopsPaying() throws Exception {
    // A day of history ending now, aligned to its own start (a whole minute).
    Instant end = Instant.ofEpochSecond(Instant.now().getEpochSecond() / 60 * 60);
    Instant start = end.minus(Duration.ofHours(24));
    Simulator sim =
        new Simulator(
            ScenarioLoader.parse(
                "speedup.yaml",
                "name: speedup\nmodels:\n" + model("it/eagle", 3) + model("it/eagle-plain", 0),
                dir),
            Clock.fixed(start, ZoneOffset.UTC));
    String history =
        withFinishedRequests(
            sim.openMetricsHistory(start, end, Duration.ofSeconds(30), "vllm"), start, end);
    dev.specwatch.testing.EaglePair.writeRecipes(dir);
    WebDriver browser = HeadlessChromium.start(dir, "1200,1400");
    try (PrometheusServer prometheus = PrometheusServer.builder().history(history).start()) {
      Path config =
          DaemonProcess.Config.of(prometheus.baseUri())
              .evaluation("5s", "5m")
              .write(dir.resolve("specwatch.yaml"));
      try (var daemon =
          DaemonAccess.start(config, new ConfigLoader(k -> null), Clock.systemUTC())) {
        String page = "http://127.0.0.1:" + daemon.port() + "/recipes/eagle";
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  browser.get(page);
                  return !browser.findElements(By.cssSelector("span.badge")).isEmpty();
                });
        String text = browser.findElement(By.tagName("main")).getText();
        assertThat(text)
            .contains("Speed-up by load")
            .contains("against eagle-plain over the last 24 hours, to ")
            .contains("Speculation paid up to 31 running requests.");
        // eagle's finished requests carried three times eagle-plain's prompt: the comparison says
        // it may be the traffic's.
        assertThat(browser.findElement(By.cssSelector("p.confounded")).getText())
            .isEqualTo(
                "The speed-up may be confounded: the two sides' requests differ (3,000 vs 1,000"
                    + " prompt tokens, 200 vs 200 output tokens per finished request), so part of"
                    + " the difference in speed may be the traffic's.");
        // One story: advise over the same window (the page says where it ends) gives the page's
        // figures bucket by bucket, the same headline and the same recommended k.
        java.util.regex.Matcher to =
            java.util.regex.Pattern.compile(
                    "24 hours, to (\\d{4}-\\d\\d-\\d\\d) (\\d\\d:\\d\\d) UTC")
                .matcher(text);
        assertThat(to.find()).as(text).isTrue();
        String at = to.group(1) + "T" + to.group(2) + ":00Z";
        dev.specwatch.cli.CliRunner.Result advise =
            dev.specwatch.cli.CliRunner.run(
                "advise",
                "--config",
                config.toString(),
                "--recipe",
                "eagle",
                "--window",
                "24h",
                "--time",
                at,
                "--output",
                "json");
        assertThat(advise.exit()).as(advise.err()).isZero();
        com.fasterxml.jackson.databind.JsonNode json =
            new com.fasterxml.jackson.databind.ObjectMapper().readTree(advise.out());
        List<String> rows = new java.util.ArrayList<>();
        for (WebElement row : browser.findElements(By.cssSelector("table.speedup tbody tr"))) {
          rows.add(row.findElements(By.tagName("td")).get(0).getText());
        }
        com.fasterxml.jackson.databind.JsonNode byLoad = json.path("speedup").path("by_load");
        assertThat(rows).hasSize(byLoad.size());
        for (int i = 0; i < rows.size(); i++) {
          // The page rounds to two places, the JSON to three: equal to within the rounding.
          assertThat(Double.parseDouble(rows.get(i).replace("×", "")))
              .as("bucket %d", i)
              .isCloseTo(
                  byLoad.get(i).path("speedup").asDouble(),
                  org.assertj.core.api.Assertions.within(0.0051));
        }
        com.fasterxml.jackson.databind.JsonNode most = json.path("speedup").path("most_run");
        assertThat(text)
            .containsPattern(
                String.format(
                    java.util.Locale.ROOT,
                    "[0-9.]+× per request at %d–%d running requests \\(95 %% [0-9.]+–[0-9.]+\\),"
                        + " the load it ran most",
                    most.path("running_min").asInt(),
                    most.path("running_max").asInt()))
            .contains("Recommended num_speculative_tokens: " + json.path("recommended_k").asInt());
        java.util.regex.Matcher headline =
            java.util.regex.Pattern.compile("([0-9.]+)× per request at [0-9–]+ running requests")
                .matcher(text);
        assertThat(headline.find()).isTrue();
        assertThat(Double.parseDouble(headline.group(1)))
            .isCloseTo(
                most.path("speedup").asDouble(), org.assertj.core.api.Assertions.within(0.0051));
        assertThat(json.path("recommended_from").asText()).startsWith("measured speed-up by load");
        // One bar per load bucket, green where it pays, red where it costs (32-63).
        assertThat(browser.findElements(By.cssSelector("svg.speedup rect"))).hasSize(6);
        assertThat(
                browser
                    .findElements(By.cssSelector("svg.speedup rect"))
                    .get(5)
                    .getAttribute("fill"))
            .isEqualTo("#de350b");
        assertThat(
                browser
                    .findElements(By.cssSelector("svg.speedup rect"))
                    .get(0)
                    .getAttribute("fill"))
            .isEqualTo("#36b37e");
        assertThat(text).contains("32–63").contains("costs").contains("16–31");
        // The rest of the efficiency picture: 0.8, 0.6 / 0.8, 0.4 / 0.6; 1.8 of 2.8 tokens a step.
        assertThat(text)
            .contains("Given the position before was accepted: 80.0 % · 75.0 % · 66.7 %")
            .contains("output tokens from accepted drafts")
            .contains("64.3 %");
        Files.createDirectories(Path.of("target/ui"));
        Files.write(
            Path.of("target/ui/recipe-speedup.png"),
            ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        // The speed-up section itself, scrolled into view.
        ((org.openqa.selenium.JavascriptExecutor) browser)
            .executeScript(
                "arguments[0].scrollIntoView()",
                browser.findElement(By.cssSelector("p.confounded")));
        Files.write(
            Path.of("target/ui/recipe-speedup-section.png"),
            ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        // Charts over time, over a day of history: the acceptance line drawn across the day.
        browser.get(page + "?span=24h");
        List<WebElement> charts = browser.findElements(By.cssSelector("svg.timechart"));
        assertThat(charts).hasSize(3);
        assertThat(charts.get(0).findElement(By.cssSelector("path.series")).getAttribute("d"))
            .hasSizeGreaterThan(2000);
        Files.write(
            Path.of("target/ui/recipe-charts.png"),
            browser.findElement(By.tagName("main")).getScreenshotAs(OutputType.BYTES));
        // The baseline is watched too: its throughput and running requests, no acceptance.
        browser.get("http://127.0.0.1:" + daemon.port() + "/");
        String fleet = browser.findElement(By.tagName("main")).getText();
        assertThat(fleet)
            .contains("eagle-plain")
            .containsPattern("no speculation: [0-9.]+ tokens/s");
        // Its 6-hour trend is its throughput, with a scale; the speculative one's acceptance.
        assertThat(sparkLabel(browser, "eagle-plain"))
            .startsWith("generation tokens/s over the last 6 hours, 0 to ");
        assertThat(sparkLabel(browser, "eagle"))
            .isEqualTo("acceptance over the last 6 hours, 0 to 100%");
        browser.get("http://127.0.0.1:" + daemon.port() + "/recipes/eagle-plain");
        assertThat(browser.findElement(By.tagName("main")).getText())
            .contains(
                "No speculation: throughput shown, no alert rule (add thresholds.throughput to"
                    + " alert); speed-up baseline of eagle")
            .contains("tokens/s per running request")
            .doesNotContain("Speed-up by load")
            .doesNotContain("Acceptance by draft position");
        // validate describes it in the same words.
        assertThat(dev.specwatch.cli.CliRunner.run("validate", "--config", config.toString()).out())
            .contains(
                "eagle-plain (vllm, no speculation: throughput shown, no alert rule (add"
                    + " thresholds.throughput to alert); speed-up baseline of eagle)");
        // The same throughput trend as on the fleet page, with its scale.
        assertThat(browser.findElement(By.cssSelector("svg.spark")).getAttribute("aria-label"))
            .startsWith("generation tokens/s over the last 6 hours, 0 to ");
        Files.write(
            Path.of("target/ui/recipe-baseline.png"),
            ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
      }
    } finally {
      browser.quit();
    }
  }

  /** The aria-label of a recipe's sparkline on the fleet page. */
  private static String sparkLabel(WebDriver browser, String recipe) {
    return browser
        .findElement(By.cssSelector("a[href='/recipes/" + recipe + "']"))
        .findElement(By.xpath("ancestor::tr"))
        .findElement(By.cssSelector("svg.spark"))
        .getAttribute("aria-label");
  }
}
