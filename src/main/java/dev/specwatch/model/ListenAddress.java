package dev.specwatch.model;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * {@code HOST:PORT} (or {@code [IPv6]:PORT}, or {@code :PORT} for every interface), validated: the
 * port is 0..65535 (0: any free port).
 */
public record ListenAddress(String host, int port) {
  public ListenAddress {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0..65535");
    }
  }

  public static Optional<ListenAddress> parse(String value) {
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      return Optional.empty();
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if ((host.isBlank() && !host.isEmpty()) || host.contains(" ")) {
      return Optional.empty();
    }
    try {
      int port = Integer.parseInt(value.substring(colon + 1));
      if (port < 0 || port > 65535) {
        return Optional.empty();
      }
      return Optional.of(new ListenAddress(host.isEmpty() ? "0.0.0.0" : host, port));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Whether {@code host} (a name or address, IPv6 with or without brackets) is loopback. */
  public static boolean isLoopbackHost(String host) {
    String h =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    return h.equals("localhost")
        || h.equals("::1")
        || h.equals("0:0:0:0:0:0:0:1")
        || h.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
  }

  public InetSocketAddress socketAddress() {
    return new InetSocketAddress(host, port);
  }

  @Override
  public String toString() {
    return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
  }
}
