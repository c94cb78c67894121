package dev.specwatch.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeOptions;

/** Debian's Chromium through chromium-driver, headless, with the flags the suite's rules name. */
public final class HeadlessChromium {
  private HeadlessChromium() {}

  /**
   * @param dir where its profile goes (a test's temporary directory)
   * @param windowSize {@code 1400,1000}: the size of the screenshots
   */
  public static WebDriver start(Path dir, String windowSize) throws IOException {
    System.setProperty("webdriver.chrome.driver", "/usr/bin/chromedriver");
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=" + windowSize,
        "--user-data-dir=" + Files.createTempDirectory(dir, "chromium"));
    return new ChromeDriver(options);
  }
}
