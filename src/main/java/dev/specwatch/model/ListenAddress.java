package dev.specwatch.model;

import java.net.InetSocketAddress;
import java.util.Optional;

/** {@code HOST:PORT} (or {@code [IPv6]:PORT}, or {@code :PORT} for every interface). */
public final class ListenAddress {
  private ListenAddress() {}

  public static Optional<InetSocketAddress> parse(String value) {
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      return Optional.empty();
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      int port = Integer.parseInt(value.substring(colon + 1));
      if (port < 0 || port > 65535) {
        return Optional.empty();
      }
      return Optional.of(new InetSocketAddress(host.isEmpty() ? "0.0.0.0" : host, port));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
