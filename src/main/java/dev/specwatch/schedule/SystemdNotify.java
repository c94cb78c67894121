package dev.specwatch.schedule;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * systemd's notification protocol ({@code sd_notify(3)}): one datagram of {@code KEY=VALUE} lines
 * to the AF_UNIX socket named by {@code $NOTIFY_SOCKET}. The JDK sends no AF_UNIX datagrams, so the
 * three libc calls go through JNA; nothing native is loaded when systemd did not ask for
 * notifications (no {@code NOTIFY_SOCKET}: a container, a terminal). A failed send is logged once
 * and never stops the daemon.
 */
final class SystemdNotify {
  private static final Logger logger = LoggerFactory.getLogger(SystemdNotify.class);

  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int SOCK_CLOEXEC = 0x80000;

  /** {@code sizeof(((struct sockaddr_un *) 0)->sun_path)} on Linux. */
  private static final int SUN_PATH = 108;

  private final byte[] address;
  private final String socket;
  private volatile boolean failed;

  /** The libc calls this needs. */
  interface LibC extends Library {
    int socket(int domain, int type, int protocol) throws LastErrorException;

    long sendto(int fd, byte[] buf, long len, int flags, byte[] addr, int addrlen)
        throws LastErrorException;

    int close(int fd) throws LastErrorException;
  }

  private static final class Holder {
    static final LibC LIBC = Native.load("c", LibC.class);
  }

  private SystemdNotify(String socket, byte[] address) {
    this.socket = socket;
    this.address = address;
  }

  /** The notifier systemd asked for with {@code NOTIFY_SOCKET}, or empty. */
  static Optional<SystemdNotify> fromEnvironment(Map<String, String> env) {
    String socket = env.get("NOTIFY_SOCKET");
    if (socket == null || socket.isEmpty()) {
      return Optional.empty();
    }
    byte[] address = sockaddr(socket);
    if (address == null) {
      logger.warn("NOTIFY_SOCKET is not an AF_UNIX socket path; not notifying systemd");
      return Optional.empty();
    }
    return Optional.of(new SystemdNotify(socket, address));
  }

  /**
   * The watchdog interval systemd asked for ({@code WATCHDOG_USEC}, for this process when {@code
   * WATCHDOG_PID} is set), or empty.
   */
  static Optional<Duration> watchdog(Map<String, String> env, long pid) {
    String usec = env.get("WATCHDOG_USEC");
    String forPid = env.get("WATCHDOG_PID");
    if (usec == null || (forPid != null && !forPid.equals(Long.toString(pid)))) {
      return Optional.empty();
    }
    try {
      long micros = Long.parseLong(usec.trim());
      return micros > 0 ? Optional.of(Duration.ofNanos(micros * 1000)) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * {@code struct sockaddr_un} for {@code path}: family, then the path and its NUL; a leading
   * {@code @} is the abstract namespace (a NUL, and no trailing one). Null if it does not fit.
   */
  static byte[] sockaddr(String path) {
    if (!path.startsWith("/") && !path.startsWith("@")) {
      return null;
    }
    byte[] name = path.getBytes(StandardCharsets.UTF_8);
    boolean abstractName = path.startsWith("@");
    if (abstractName) {
      name[0] = 0;
    }
    int length = name.length + (abstractName ? 0 : 1);
    if (length > SUN_PATH) {
      return null;
    }
    byte[] addr = new byte[2 + length];
    boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    addr[little ? 0 : 1] = (byte) AF_UNIX;
    System.arraycopy(name, 0, addr, 2, name.length);
    return addr;
  }

  /** Sends {@code state} (e.g. {@code READY=1}); false when it could not be sent. */
  boolean send(String state) {
    byte[] message = state.getBytes(StandardCharsets.UTF_8);
    try {
      LibC libc = Holder.LIBC;
      int fd = libc.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      try {
        libc.sendto(fd, message, message.length, 0, address, address.length);
      } finally {
        libc.close(fd);
      }
      return true;
    } catch (LastErrorException | UnsatisfiedLinkError e) {
      if (!failed) {
        failed = true;
        logger.warn("cannot notify systemd at {}: {}", socket, e.getMessage());
      }
      return false;
    }
  }
}
