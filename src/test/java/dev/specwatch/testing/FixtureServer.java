package dev.specwatch.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Serves the golden engine expositions of {@code src/test/resources/engines/} as live targets: at
 * {@code /<fixture>/metrics} (e.g. {@code /sglang-dp-attention/metrics}) each counter sample is the
 * fixture's value multiplied by the seconds since the server started, every other line as it is. A
 * fixture's counter values are thus its per-second rates, and any figure a rate window gives can be
 * derived by hand from the file. A gauge the engine changes at run time is written with a comment
 * {@code # fixture: <name> alternates <v1> <v2> ...}: its samples take the values in turn, one per
 * scrape of that fixture, so a window of n scrapes holds each value n / (number of values) times,
 * give or take one. Listens on a port of its own choosing (127.0.0.1:0).
 */
public final class FixtureServer implements AutoCloseable {
  public static final List<String> FIXTURES =
      List.of(
          "vllm-v1-dp2",
          "vllm-v1-token-counters-only",
          "vllm-dynamic-draft-length",
          "sglang-verify-calls",
          "sglang-dp-attention",
          "sglang-gauges-only",
          "sglang-active-k",
          "sglang-adaptive-k",
          "trtllm",
          "trtllm-iteration-stats-only",
          "trtllm-positions-only",
          "trtllm-no-speculative-metrics",
          "llamacpp",
          "ray_vllm");

  private final HttpServer server;

  private FixtureServer(HttpServer server) {
    this.server = server;
  }

  /** The fixture's text, as it is in the file. */
  public static String text(String fixture) {
    try (InputStream in =
        FixtureServer.class.getResourceAsStream("/engines/" + fixture + ".prom")) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture /engines/" + fixture + ".prom");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fixture with every counter sample's value multiplied by {@code seconds}. */
  public static String scaled(String text, double seconds) {
    Set<String> counters = new HashSet<>();
    StringBuilder out = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("# TYPE ") && line.endsWith(" counter")) {
        counters.add(line.substring(7, line.length() - 8));
      }
      if (!line.startsWith("#") && !line.isBlank()) {
        Exposition.Sample s = Exposition.sample(line);
        if (counters.contains(s.name())) {
          String head = line.substring(0, line.lastIndexOf(' '));
          line = head + " " + Double.parseDouble(s.value()) * seconds;
        }
      }
      out.append(line).append('\n');
    }
    return out.toString();
  }

  /**
   * The fixture as served at its {@code scrape}-th scrape (from 0): every gauge named in a {@code #
   * fixture: <name> alternates <v1> <v2> ...} comment takes the value {@code scrape} picks in turn.
   */
  public static String alternated(String text, long scrape) {
    Map<String, String> values = new HashMap<>();
    for (String line : text.split("\n", -1)) {
      if (line.startsWith(ALTERNATES)) {
        String[] words = line.substring(ALTERNATES.length()).trim().split(" +");
        if (words.length < 4 || !words[1].equals("alternates")) {
          throw new IllegalArgumentException(
              "expected '# fixture: <name> alternates <v1> <v2>': " + line);
        }
        values.put(words[0], words[2 + (int) (scrape % (words.length - 2))]);
      }
    }
    if (values.isEmpty()) {
      return text;
    }
    StringBuilder out = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (!line.startsWith("#") && !line.isBlank()) {
        String value = values.get(Exposition.sample(line).name());
        if (value != null) {
          line = line.substring(0, line.lastIndexOf(' ')) + " " + value;
        }
      }
      out.append(line).append('\n');
    }
    return out.substring(0, out.length() - 1);
  }

  private static final String ALTERNATES = "# fixture: ";

  public static FixtureServer start() throws IOException {
    long started = System.nanoTime();
    return start(() -> System.nanoTime() - started);
  }

  static FixtureServer start(LongSupplier elapsedNanos) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    for (String fixture : FIXTURES) {
      String text = text(fixture);
      AtomicLong scrapes = new AtomicLong();
      server.createContext(
          "/" + fixture + "/metrics",
          exchange -> {
            try (exchange) {
              String served =
                  alternated(
                      scaled(text, elapsedNanos.getAsLong() / 1e9), scrapes.getAndIncrement());
              byte[] body = served.getBytes(StandardCharsets.UTF_8);
              exchange
                  .getResponseHeaders()
                  .add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
              exchange.sendResponseHeaders(200, body.length);
              try (OutputStream os = exchange.getResponseBody()) {
                os.write(body);
              }
            }
          });
    }
    server.start();
    return new FixtureServer(server);
  }

  /** {@code 127.0.0.1:port}, a scrape target. */
  public String target() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  public static String metricsPath(String fixture) {
    return "/" + fixture + "/metrics";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
