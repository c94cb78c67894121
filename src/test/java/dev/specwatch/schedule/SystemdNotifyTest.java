package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sd_notify as systemd receives it: a real AF_UNIX datagram socket bound where NOTIFY_SOCKET says,
 * read back with recv(2). (systemd itself runs the unit in make install-test.)
 */
class SystemdNotifyTest {
  /** What the receiving side needs of libc. */
  interface Receiver extends Library {
    Receiver LIBC = Native.load("c", Receiver.class);

    int socket(int domain, int type, int protocol) throws LastErrorException;

    int bind(int fd, byte[] addr, int addrlen) throws LastErrorException;

    long recv(int fd, byte[] buf, long len, int flags) throws LastErrorException;

    int close(int fd) throws LastErrorException;
  }

  @TempDir Path dir;

  @Test
  void sendsEachStateAsOneDatagramToTheNotifySocket() {
    String path = dir.resolve("notify").toString();
    int fd = Receiver.LIBC.socket(1, 2, 0);
    try {
      byte[] addr = SystemdNotify.sockaddr(path);
      Receiver.LIBC.bind(fd, addr, addr.length);
      SystemdNotify notify = SystemdNotify.fromEnvironment(Map.of("NOTIFY_SOCKET", path)).get();
      assertThat(notify.send("READY=1\nSTATUS=evaluating every 30s")).isTrue();
      assertThat(notify.send("WATCHDOG=1")).isTrue();
      assertThat(receive(fd)).isEqualTo("READY=1\nSTATUS=evaluating every 30s");
      assertThat(receive(fd)).isEqualTo("WATCHDOG=1");
    } finally {
      Receiver.LIBC.close(fd);
    }
  }

  @Test
  void aSocketNobodyListensOnIsAFalseNotACrash() {
    SystemdNotify notify =
        SystemdNotify.fromEnvironment(Map.of("NOTIFY_SOCKET", dir.resolve("none").toString()))
            .get();
    assertThat(notify.send("READY=1")).isFalse();
    assertThat(notify.send("READY=1")).isFalse();
  }

  @Test
  void noNotifySocketMeansNoNotifierAndNothingNativeLoaded() {
    assertThat(SystemdNotify.fromEnvironment(Map.of())).isEmpty();
    assertThat(SystemdNotify.fromEnvironment(Map.of("NOTIFY_SOCKET", "relative/path"))).isEmpty();
  }

  @Test
  void theAddressIsSockaddrUnPathOrAbstract() {
    byte[] path = SystemdNotify.sockaddr("/run/systemd/notify");
    assertThat(path).hasSize(2 + "/run/systemd/notify".length() + 1);
    assertThat(path[0]).isEqualTo((byte) 1); // AF_UNIX, little-endian sa_family_t
    assertThat(path[path.length - 1]).isZero();
    byte[] abstractName = SystemdNotify.sockaddr("@sd-notify");
    assertThat(abstractName).hasSize(2 + "@sd-notify".length());
    assertThat(abstractName[2]).isZero();
    assertThat(SystemdNotify.sockaddr("/" + "x".repeat(107))).isNull();
  }

  @Test
  void theWatchdogIntervalIsReadForThisProcessOnly() {
    assertThat(SystemdNotify.watchdog(Map.of("WATCHDOG_USEC", "60000000"), 42))
        .hasValue(Duration.ofSeconds(60));
    assertThat(
            SystemdNotify.watchdog(Map.of("WATCHDOG_USEC", "60000000", "WATCHDOG_PID", "42"), 42))
        .hasValue(Duration.ofSeconds(60));
    assertThat(SystemdNotify.watchdog(Map.of("WATCHDOG_USEC", "60000000", "WATCHDOG_PID", "7"), 42))
        .isEmpty();
    assertThat(SystemdNotify.watchdog(Map.of(), 42)).isEmpty();
  }

  private static String receive(int fd) {
    byte[] buf = new byte[4096];
    long n = Receiver.LIBC.recv(fd, buf, buf.length, 0);
    return new String(buf, 0, (int) n, StandardCharsets.UTF_8);
  }
}
