package io.iwarp4j.it.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay on 127.0.0.1 in front of a listener, so that the test can cut a connection between
 * two devices abruptly: {@link #resetNewest} closes both of the relay's sockets with SO_LINGER 0,
 * and each device's end gets a TCP RST, as when a peer host or process dies. The stack needs no
 * hook for it. Two daemon threads per connection copy octets as they come.
 */
final class ResettableLink implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final List<Socket[]> links = new ArrayList<>();
  private final Thread acceptor;

  ResettableLink(InetSocketAddress target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.1"));
    this.acceptor = new Thread(this::accept, "model-link-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", server.getLocalPort());
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket in = server.accept();
        Socket out = new Socket(target.getAddress(), target.getPort());
        in.setTcpNoDelay(true);
        out.setTcpNoDelay(true);
        synchronized (links) {
          links.add(new Socket[] {in, out});
        }
        pump(in, out);
        pump(out, in);
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[64 * 1024];
      try (InputStream is = from.getInputStream(); OutputStream os = to.getOutputStream()) {
        int n;
        while ((n = is.read(buf)) > 0) {
          os.write(buf, 0, n);
        }
        to.shutdownOutput(); // pass a FIN on
      } catch (IOException e) {
        // reset, or the other side closed: the other pump ends too
      }
    }, "model-link-pump");
    t.setDaemon(true);
    t.start();
  }

  /** Cuts the newest connection with a RST to both ends; true if there was one. */
  boolean resetNewest() {
    Socket[] link;
    synchronized (links) {
      if (links.isEmpty()) {
        return false;
      }
      link = links.remove(links.size() - 1);
    }
    for (Socket s : link) {
      try {
        s.setSoLinger(true, 0);
        s.close();
      } catch (IOException ignored) {
        // already closed
      }
    }
    return true;
  }

  /** Connections relayed and not reset, the newest last. */
  int size() {
    synchronized (links) {
      return links.size();
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    synchronized (links) {
      for (Socket[] link : links) {
        for (Socket s : link) {
          s.close();
        }
      }
      links.clear();
    }
  }
}
