package dev.specwatch.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A loopback TCP relay in front of a server that keeps every byte the client sent: what an
 * eavesdropper on the wire would read. Bounded: it relays connections until closed.
 */
public final class WireTap implements AutoCloseable {
  private final ServerSocket listener;
  private final int target;
  private final ByteArrayOutputStream fromClient = new ByteArrayOutputStream();
  private final Thread acceptor;

  public WireTap(int targetPort) throws IOException {
    this.target = targetPort;
    this.listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "wiretap");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Everything clients sent so far, as ISO-8859-1 text (one char a byte). */
  public synchronized String clientBytes() {
    return fromClient.toString(StandardCharsets.ISO_8859_1);
  }

  /** The first byte a client sent, or -1. */
  public synchronized int firstClientByte() {
    byte[] b = fromClient.toByteArray();
    return b.length == 0 ? -1 : b[0] & 0xff;
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 5000);
        pump(client.getInputStream(), server.getOutputStream(), true, client, server);
        pump(server.getInputStream(), client.getOutputStream(), false, client, server);
      } catch (IOException e) {
        if (!listener.isClosed()) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  private void pump(InputStream in, OutputStream out, boolean record, Socket a, Socket b) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[8192];
              try (a;
                  b) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                  if (record) {
                    synchronized (this) {
                      fromClient.write(buf, 0, n);
                    }
                  }
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // the other side closed: the relay of this connection ends
              }
            },
            "wiretap-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
