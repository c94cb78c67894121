package dev.specwatch.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.specwatch.config.ConfigLoader;
import dev.specwatch.schedule.DaemonAccess;
import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.Fleet;
import dev.specwatch.testing.HeadlessChromium;
import dev.specwatch.testing.HeldClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The web UI in Debian's Chromium (headless, through chromium-driver and Selenium): a real
 * Prometheus scraping the simulator, the daemon serving the pages. The fleet shows the recipes and
 * their states; a recipe and a model named like markup render as text; a silence created through
 * the form keeps the regression's firing out of Slack, and expiring it through the form sends the
 * firing that was held back. Screenshots go to target/ui/ for review.
 */
class WebUiIT {
  static final String HOSTILE_RECIPE = "<script>alert(1)</script>";
  static final String HOSTILE_MODEL = "\"x\" \\ y";

  @TempDir Path dir;
  WebDriver browser;
  final Path shots = Path.of("target/ui");

  @BeforeEach
  void startBrowser() throws Exception {
    browser = HeadlessChromium.start(dir, "1400,1000");
    Files.createDirectories(shots);
  }

  @AfterEach
  void stopBrowser() {
    if (browser != null) {
      browser.quit();
    }
  }

  String mainText() {
    return browser.findElement(By.tagName("main")).getText();
  }

  void shot(String name) throws Exception {
    Files.write(
        shots.resolve(name + ".png"),
        ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
  }

  @Test
  void pagesShowTheFleetEscapeEverythingAndSilencesWorkThroughTheForms() throws Exception {
    // The scenario stands still (idle) until the silence exists: then healthy 20 s, regressed.
    HeldClock timeline = new HeldClock();
    try (Fleet fleet = Fleet.startHeld("/dev/specwatch/testing/daemon-it.yaml", timeline);
        FakeSlackApi slack = new FakeSlackApi()) {
      DaemonProcess.policy(
          dir.resolve("alerts"), "daemon", "it/daemon", "for: 4s\nkeep_firing_for: 4s\n");
      Files.writeString(
          dir.resolve("alerts/hostile.yaml"),
          "recipe: \"<script>alert(1)</script>\"\nmatch: {model_name: '\"x\" \\ y'}\n"
              + "num_speculative_tokens: 2\n");
      Path config =
          DaemonProcess.Config.of(fleet.prometheus().baseUri())
              .slack("xoxb-ui-planted-2024", slack.apiUrl(), "grouping: {group_wait: 2s}")
              .write(dir.resolve("specwatch.yaml"));
      try (var daemon =
          DaemonAccess.start(config, new ConfigLoader(k -> null), Clock.systemUTC())) {
        String base = "http://127.0.0.1:" + daemon.port();

        // The fleet: both recipes, their states, the hostile names as text.
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(
                () -> {
                  browser.get(base + "/");
                  return browser.findElements(By.cssSelector("tbody tr")).size() == 2;
                });
        String fleetText = browser.findElement(By.tagName("table")).getText();
        assertThat(fleetText).contains("daemon").contains(HOSTILE_RECIPE);
        assertThat(browser.findElement(By.linkText("daemon")).getAttribute("href"))
            .endsWith("/recipes/daemon");
        assertThatThrownBy(() -> browser.switchTo().alert())
            .as("no script ran")
            .isInstanceOf(NoAlertPresentException.class);
        assertThat(browser.getPageSource()).doesNotContain("<script>alert(1)");
        assertThat(browser.findElements(By.cssSelector("th[scope=col]"))).hasSizeGreaterThan(5);
        shot("fleet");

        browser.findElement(By.linkText(HOSTILE_RECIPE)).click();
        // The click navigates: wait for the new page (an element of the old one goes stale).
        await()
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .untilAsserted(
                () ->
                    assertThat(browser.findElement(By.tagName("h1")).getText())
                        .isEqualTo(HOSTILE_RECIPE));
        assertThat(browser.findElement(By.tagName("main")).getText()).contains(HOSTILE_MODEL);
        assertThatThrownBy(() -> browser.switchTo().alert())
            .isInstanceOf(NoAlertPresentException.class);

        // A silence through the form, before the regression: the timeline runs only after it.
        browser.get(base + "/silences");
        browser.findElement(By.id("recipe")).sendKeys("daemon");
        browser.findElement(By.id("rule")).sendKeys("acceptance_rate");
        browser.findElement(By.id("duration")).clear();
        browser.findElement(By.id("duration")).sendKeys("10m");
        browser.findElement(By.id("comment")).sendKeys("rolling out a new build");
        browser.findElement(By.cssSelector("form.card button[type=submit]")).click();
        await()
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .until(() -> mainText().contains("rolling out a new build"));
        assertThat(browser.getCurrentUrl()).isEqualTo(base + "/silences");
        shot("silences");
        timeline.release();

        // The regression fires while silenced: the engine records it, Slack hears nothing.
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(
                () -> {
                  browser.get(base + "/alerts");
                  // The firing badge: the caption "Pending and firing" is not an alert firing.
                  return !browser.findElements(By.cssSelector("span.badge.firing")).isEmpty()
                      && !browser.findElements(By.cssSelector("span.badge.silenced")).isEmpty();
                });
        shot("alerts-silenced");
        assertThat(slack.calls()).as("silenced: nothing posted").isEmpty();
        // At a glance: the alert's severity and when it fired; acceptance in percent.
        assertThat(mainText())
            .contains("warning")
            .contains("fired 20")
            .containsPattern("\\d\\.\\d %");
        // The fleet says it in one line, and marks the silenced row.
        browser.get(base + "/");
        assertThat(browser.findElement(By.cssSelector("p.summary")).getText())
            .contains("2 recipes over the 15s evaluation window")
            .contains("1 alerting, 1 silenced, 1 without data");
        assertThat(browser.findElements(By.cssSelector("tr.state-breach span.badge.silenced")))
            .hasSize(1);
        assertThat(mainText()).contains(" of 4");
        shot("fleet-silenced");
        // The recipe page says until when, and offers no second silence.
        browser.get(base + "/recipes/daemon");
        assertThat(mainText())
            .contains("silenced until")
            .contains("rolling out a new build")
            .doesNotContain("Silence this recipe");

        // Expire it through the form: the engine sends the late notification.
        browser.get(base + "/silences");
        browser.findElement(By.cssSelector("button[aria-label^='Expire silence']")).click();
        await()
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .untilAsserted(
                () ->
                    assertThat(browser.findElement(By.tagName("main")).getText())
                        .contains("No active silences."));
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(slack.calls())
                        .extracting(c -> c.params().getOrDefault("text", ""))
                        .anyMatch(t -> t.startsWith("[WARNING] daemon: acceptance rate")));

        browser.get(base + "/recipes/daemon");
        String recipe = browser.findElement(By.tagName("main")).getText();
        assertThat(recipe)
            .contains("acceptance rate")
            .contains("below 45.0 %, clears above 50.0 %")
            .contains("firing")
            .contains("Silence this recipe for 2 h")
            // The advisor reads the last hour, not the 15 s window, and says so.
            .contains("over the last 1h");
        assertThat(browser.findElements(By.cssSelector("span.bar"))).hasSize(3);
        // Charts over time: acceptance, accepted length, by position; the threshold dashed and
        // the alert's firing marked; the acceptance line drawn from the steps measured so far.
        List<WebElement> charts = browser.findElements(By.cssSelector("svg.timechart"));
        assertThat(charts).hasSize(3);
        assertThat(charts.get(0).findElements(By.cssSelector("line.threshold"))).hasSize(1);
        assertThat(charts.get(0).findElements(By.cssSelector("line.fired")))
            .as(charts.get(0).getAttribute("outerHTML"))
            .isNotEmpty();
        assertThat(charts.get(0).findElements(By.cssSelector("path.series"))).isNotEmpty();
        assertThat(charts.get(2).getText()).contains("position 0").contains("position 2");
        shot("recipe");
        browser.findElement(By.linkText("7d")).click();
        await()
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .until(() -> browser.getCurrentUrl().endsWith("?span=7d"));
        assertThat(browser.findElements(By.cssSelector("svg.timechart"))).hasSize(3);

        browser.get(base + "/status");
        assertThat(browser.findElement(By.tagName("main")).getText())
            .contains("ready")
            .contains("slack (slack)")
            .contains("Notifiers since start")
            .doesNotContain("xoxb-ui-planted-2024");
        shot("status");
        for (String page : List.of("/", "/alerts", "/silences", "/status", "/recipes/daemon")) {
          browser.get(base + page);
          assertThat(browser.getPageSource()).doesNotContain("xoxb-ui-planted-2024");
        }
      }
    }
  }
}
