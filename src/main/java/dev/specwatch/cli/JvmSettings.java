package dev.specwatch.cli;

import java.util.Map;

/**
 * The process-wide JVM settings specwatch needs, in one place and applied once, by {@link
 * Main#main} before anything else runs: never from a class's static initializer, where loading a
 * class would change the whole JVM behind an embedder's back. An operator's own {@code -D} wins.
 */
final class JvmSettings {
  /**
   * Limits of the JDK's HTTP server (read when its first server starts): a client that sends a
   * request, or reads a response, slower than this is disconnected, so half-sent requests cannot
   * hold the web workers and starve {@code /healthz} or the Prometheus scrape. And AWT without a
   * display, for the digest's charts (JFreeChart).
   */
  static final Map<String, String> DEFAULTS =
      Map.of(
          "sun.net.httpserver.maxReqTime", "10",
          "sun.net.httpserver.maxRspTime", "30",
          "sun.net.httpserver.maxReqHeaders", "100",
          "java.awt.headless", "true");

  private JvmSettings() {}

  /** Sets each default the operator did not set. */
  static void apply() {
    DEFAULTS.forEach(
        (key, value) -> {
          if (System.getProperty(key) == null) {
            System.setProperty(key, value);
          }
        });
  }
}
