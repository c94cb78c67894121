package dev.specwatch.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.testing.DaemonProcess;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.FakeSocketMode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four hundred reloads of the daemon (the shipped JVM flags, a Slack notifier with Socket Mode and
 * a webhook): threads and RSS from /proc before and after, and how often Socket Mode connected.
 * Before: 9 to 209 {@code slack-api-metrics} threads and RSS 132 to 151 MB.
 */
class ReloadsIT {
  static final String FLAGS = "-Xms32m -Xmx128m -XX:+ExitOnOutOfMemoryError";

  @TempDir Path dir;

  private static long status(long pid, String field) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).strip().split("\\s+")[0]);
      }
    }
    throw new IllegalStateException(field + " not in /proc/" + pid + "/status");
  }

  /** The heap in use after a full collection, in KiB (jcmd GC.run, then GC.heap_info). */
  private static long liveHeap(long pid) throws Exception {
    run("jcmd", Long.toString(pid), "GC.run");
    String info = run("jcmd", Long.toString(pid), "GC.heap_info");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("used (\\d+)K").matcher(info);
    if (!m.find()) {
      throw new IllegalStateException("no heap in use in: " + info);
    }
    return Long.parseLong(m.group(1));
  }

  private static String run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }

  @Test
  @Tag("chaos")
  void twoHundredReloadsLeakNoThreadAndKeepTheSocketModeConnection() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi();
        FakeSocketMode socket = new FakeSocketMode()) {
      slack.socketMode(socket.url());
      DaemonProcess.policy(dir.resolve("alerts"), "p", "it/p", "");
      Path config =
          DaemonProcess.Config.of(URI.create("http://127.0.0.1:9"))
              .evaluation("30s", "1m")
              .slack("xoxb-reloads", slack.apiUrl(), "app_token: xapp-1-reloads")
              .webhook("http://127.0.0.1:9/hook")
              .write(dir.resolve("specwatch.yaml"));
      try (DaemonProcess daemon =
          DaemonProcess.start(
              config,
              dir.resolve("specwatch.log"),
              dir,
              List.of("env", "JAVA_TOOL_OPTIONS=" + FLAGS),
              DaemonProcess.jarPath())) {
        assertThat(socket.awaitClient(30)).isTrue();
        long pid = daemon.pid();
        for (int i = 0; i < 10; i++) { // warm up: classes loaded, pools at their size
          assertThat(daemon.post("/-/reload", null).statusCode()).isEqualTo(200);
        }
        long threadsBefore = status(pid, "Threads");
        long rssBefore = status(pid, "VmRSS");
        long heapBefore = liveHeap(pid);
        long[] rss = new long[2];
        for (int round = 0; round < 2; round++) {
          for (int i = 0; i < 200; i++) {
            assertThat(daemon.post("/-/reload", null).statusCode()).isEqualTo(200);
          }
          rss[round] = status(pid, "VmRSS");
        }
        long threadsAfter = status(pid, "Threads");
        long rssAfter = rss[1];
        long heapAfter = liveHeap(pid);
        String row =
            String.join(
                "\t",
                "400 reloads, Slack with Socket Mode and a webhook, -Xmx128m",
                "0",
                "0",
                "-",
                "-",
                "-",
                String.format(
                    Locale.ROOT,
                    "threads %d → %d; RSS %.0f → %.0f (after 200) → %.0f MB (after 400); heap in"
                        + " use after a full GC %.1f → %.1f MB; Socket Mode connections %d",
                    threadsBefore,
                    threadsAfter,
                    rssBefore / 1024.0,
                    rss[0] / 1024.0,
                    rssAfter / 1024.0,
                    heapBefore / 1024.0,
                    heapAfter / 1024.0,
                    socket.opened()));
        Path out = Path.of("target/chaos");
        Files.createDirectories(out);
        Files.writeString(
            out.resolve("reloads.tsv"),
            row + "\n",
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING);
        System.out.println("chaos: " + row.replace('\t', '|'));
        assertThat(threadsAfter).as(row).isLessThanOrEqualTo(threadsBefore + 2);
        assertThat(socket.opened()).as("one connection, kept across every reload").isEqualTo(1);
        assertThat(heapAfter)
            .as("live objects flat: " + row)
            .isLessThanOrEqualTo(heapBefore + 4096);
      }
    }
  }
}
