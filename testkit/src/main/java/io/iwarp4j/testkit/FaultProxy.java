package io.iwarp4j.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A TCP proxy on 127.0.0.1 between the code under test and its peer, which the test tells to
 * delay, stall, close or reset the connection at the point it chooses: fault injection without
 * root or network namespaces. Point the connecting side at {@link #address()} instead of the
 * target; every connection accepted there is forwarded to the target, two threads per
 * connection, one per {@link Direction}.
 *
 * <p>Each fault applies to every connection the proxy carries, now and later. A stalled direction
 * holds back what it already read (at most 64 KiB) and reads nothing more, so the rest stays in
 * the kernel's socket buffers and the sender sees TCP's own back-pressure, as with a peer that
 * stopped reading.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.to(listener.localAddress())) {
 *   device.connect(qp, proxy.address());
 *   ...
 *   proxy.stallAfter(Direction.TO_TARGET, 10);  // mid-FPDU
 *   proxy.reset();                              // both ends see a TCP RST
 * }
 * }</pre>
 *
 * <p>{@link #pauseAfter} cuts a direction's octet stream at a chosen octet: what arrives up to
 * it goes out as one write of its own, the rest a pause later, so the receiver's TCP hands the
 * two parts up as separate segments. That is what a peer's reassembly must survive: a header
 * (or a trailer) split across segments, at exactly the octet the test names.
 */
public final class FaultProxy implements AutoCloseable {
  /** Which way octets flow through the proxy. */
  public enum Direction {
    /** From the side that connected to the proxy, towards the target. */
    TO_TARGET,
    /** From the target back to the side that connected. */
    FROM_TARGET
  }

  private static final int CHUNK = 64 * 1024;
  /** A stalled pump rechecks now and then whether its socket was closed under it. */
  private static final long STALL_RECHECK_NANOS = 50_000_000L;

  private final InetSocketAddress target;
  private final ServerSocket server;
  private final Thread acceptor;
  private final Object lock = new Object();
  private final List<Link> links = new ArrayList<>();
  private final Map<Direction, Control> controls = new EnumMap<>(Direction.class);
  /** Connections whose two directions have both ended; guarded by {@code lock}. */
  private int ended;
  private volatile boolean closed;

  /** What the test set for one direction; guarded by {@code lock}. */
  private static final class Control {
    long delayNanos;
    boolean stalled;
    /** Octets still to forward before stalling (or pausing); -1 for no limit. */
    long budget = -1;
    /** When the budget runs out: pause this long instead of stalling; -1 to stall. */
    long pauseNanos = -1;
    /** A cut's pause is running; {@link #resume(Direction)} ends it early. */
    boolean pausing;
    long forwarded;
  }

  /** One proxied connection. */
  private static final class Link {
    final Socket accepted;
    final Socket outbound;

    Link(Socket accepted, Socket outbound) {
      this.accepted = accepted;
      this.outbound = outbound;
    }
  }

  private FaultProxy(InetSocketAddress target, int port) throws IOException {
    this.target = Objects.requireNonNull(target, "target");
    for (Direction d : Direction.values()) {
      controls.put(d, new Control());
    }
    server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    acceptor = new Thread(this::acceptLoop, "fault-proxy-accept-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /**
   * Starts a proxy that forwards every connection it accepts to {@code target}.
   *
   * @param target where to forward to
   * @return the running proxy
   * @throws UncheckedIOException if it cannot listen
   */
  public static FaultProxy to(InetSocketAddress target) {
    return to(target, 0);
  }

  /**
   * Starts a proxy listening on a chosen port of 127.0.0.1 (for a peer outside the test, such as
   * a tool pointed at a fixed port) that forwards every connection it accepts to {@code target}.
   *
   * @param target where to forward to
   * @param port the port to listen on, 0 for any free one
   * @return the running proxy
   * @throws IllegalArgumentException if the port is out of range
   * @throws UncheckedIOException if it cannot listen there
   */
  public static FaultProxy to(InetSocketAddress target, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is out of range");
    }
    try {
      return new FaultProxy(target, port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a proxy to " + target + " on port " + port, e);
    }
  }

  /**
   * Where to connect instead of the target.
   *
   * @return the proxy's 127.0.0.1 address
   */
  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  /**
   * Delays every chunk of octets read in direction {@code d} by {@code delay} before it is
   * forwarded; zero forwards at once again. Order is kept.
   *
   * @param d the direction
   * @param delay how long each chunk waits
   * @return this
   */
  public FaultProxy delay(Direction d, Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay " + delay + " is negative");
    }
    synchronized (lock) {
      controls.get(d).delayNanos = delay.toNanos();
    }
    return this;
  }

  /**
   * Stops forwarding in direction {@code d} until {@link #resume(Direction)}: not one more octet
   * reaches the receiver, and the sender soon sees a full TCP window.
   *
   * @param d the direction
   * @return this
   */
  public FaultProxy stall(Direction d) {
    synchronized (lock) {
      controls.get(d).stalled = true;
    }
    return this;
  }

  /**
   * Forwards exactly {@code octets} more in direction {@code d}, then stalls it: the way to
   * stop in the middle of an MPA frame.
   *
   * @param d the direction
   * @param octets how many more octets to forward, 0 or more
   * @return this
   */
  public FaultProxy stallAfter(Direction d, long octets) {
    if (octets < 0) {
      throw new IllegalArgumentException("octets " + octets + " is negative");
    }
    synchronized (lock) {
      Control c = controls.get(d);
      c.pauseNanos = -1;
      if (octets == 0) {
        c.stalled = true;
      } else {
        c.budget = octets;
      }
    }
    return this;
  }

  /**
   * Cuts direction {@code d} after exactly {@code octets} more octets: forwards them (the last
   * write ending exactly at the cut, with TCP_NODELAY so it leaves as a segment of its own),
   * holds everything after the cut for {@code pause}, then forwards as before. The receiver
   * reads the cut as a segment boundary: e.g. {@code pauseAfter(TO_TARGET, 18, 50 ms)} right
   * before an FPDU splits its header after octet 18. Once only; a later call replaces a cut not
   * yet reached, {@link #resume(Direction)} cancels it.
   *
   * @param d the direction
   * @param octets how many more octets to forward before the cut, 1 or more
   * @param pause how long to hold the rest, zero or more
   * @return this
   */
  public FaultProxy pauseAfter(Direction d, long octets, Duration pause) {
    if (octets < 1) {
      throw new IllegalArgumentException("octets " + octets + " is not positive");
    }
    if (pause.isNegative()) {
      throw new IllegalArgumentException("pause " + pause + " is negative");
    }
    synchronized (lock) {
      Control c = controls.get(d);
      c.budget = octets;
      c.pauseNanos = pause.toNanos();
    }
    return this;
  }

  /**
   * Forwards in direction {@code d} again, undoing {@link #stall} and {@link #stallAfter}, and
   * cancelling a {@link #pauseAfter} cut not yet reached or ending its pause now.
   *
   * @param d the direction
   * @return this
   */
  public FaultProxy resume(Direction d) {
    synchronized (lock) {
      Control c = controls.get(d);
      c.stalled = false;
      c.budget = -1;
      c.pauseNanos = -1;
      c.pausing = false;
      lock.notifyAll();
    }
    return this;
  }

  /**
   * Octets forwarded in direction {@code d} so far, over all connections.
   *
   * @param d the direction
   * @return the count
   */
  public long forwarded(Direction d) {
    synchronized (lock) {
      return controls.get(d).forwarded;
    }
  }

  /**
   * Waits until at least {@code octets} have been forwarded in direction {@code d}.
   *
   * @param d the direction
   * @param octets the count to reach
   * @param timeout how long to wait
   * @throws AssertionError if the count is not reached in time
   */
  public void awaitForwarded(Direction d, long octets, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (controls.get(d).forwarded < octets) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("only " + controls.get(d).forwarded + " of " + octets
              + " octets forwarded " + d + " within " + timeout.toMillis() + " ms");
        }
        waitOn(left);
      }
    }
  }

  /**
   * Waits until the proxy carries at least {@code n} connections.
   *
   * @param n the number of connections
   * @param timeout how long to wait
   * @throws AssertionError if fewer connect in time
   */
  public void awaitConnections(int n, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (links.size() < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(links.size() + " of " + n + " connections within "
              + timeout.toMillis() + " ms");
        }
        waitOn(left);
      }
    }
  }

  /**
   * Waits until at least {@code n} of the connections the proxy accepted have ended: both
   * directions saw end of stream, or the connection was closed or reset.
   *
   * @param n the number of connections
   * @param timeout how long to wait
   * @throws AssertionError if fewer end in time
   */
  public void awaitEnded(int n, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (ended < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(ended + " of " + n + " connections ended within "
              + timeout.toMillis() + " ms");
        }
        waitOn(left);
      }
    }
  }

  /**
   * Closes every connection in an orderly way: both ends see end of stream (a FIN). The proxy
   * keeps accepting new connections.
   */
  public void closeConnections() {
    for (Link l : drainLinks()) {
      quietClose(l.accepted);
      quietClose(l.outbound);
    }
  }

  /**
   * Resets every connection: both ends see a TCP RST (SO_LINGER 0). The proxy keeps accepting
   * new connections.
   */
  public void resetConnections() {
    for (Link l : drainLinks()) {
      for (Socket s : new Socket[] {l.accepted, l.outbound}) {
        try {
          s.setSoLinger(true, 0);
        } catch (SocketException ignored) {
          // already closed: nothing to reset
        }
        quietClose(s);
      }
    }
  }

  /** Stops accepting and closes every connection (a FIN to each end). */
  @Override
  public void close() {
    closed = true;
    quietClose(server);
    closeConnections();
    synchronized (lock) {
      lock.notifyAll();
    }
  }

  @Override
  public String toString() {
    return "FaultProxy{" + address() + " -> " + target + '}';
  }

  private List<Link> drainLinks() {
    synchronized (lock) {
      List<Link> all = new ArrayList<>(links);
      links.clear();
      lock.notifyAll();
      return all;
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket accepted;
      try {
        accepted = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket outbound = new Socket();
      try {
        accepted.setTcpNoDelay(true);
        outbound.setTcpNoDelay(true);
        outbound.connect(target);
      } catch (IOException e) {
        quietClose(accepted);
        quietClose(outbound);
        continue;
      }
      Link link = new Link(accepted, outbound);
      synchronized (lock) {
        links.add(link);
        lock.notifyAll();
      }
      int[] pumpsLeft = {2};
      pump(accepted, outbound, Direction.TO_TARGET, pumpsLeft);
      pump(outbound, accepted, Direction.FROM_TARGET, pumpsLeft);
    }
  }

  private void pump(Socket from, Socket to, Direction d, int[] pumpsLeft) {
    Thread t = new Thread(() -> {
      try {
        forward(from, to, d);
      } finally {
        synchronized (lock) {
          if (--pumpsLeft[0] == 0) {
            ended++;
            lock.notifyAll();
          }
        }
      }
    }, "fault-proxy-" + d + "-" + from.getLocalPort());
    t.setDaemon(true);
    t.start();
  }

  /**
   * Reads whatever arrives and forwards it, honouring the direction's control at every step: a
   * stall or a budget set while this thread was blocked in a read still holds back what that
   * read returned.
   */
  private void forward(Socket from, Socket to, Direction d) {
    byte[] buf = new byte[CHUNK];
    Control c = controls.get(d);
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      while (true) {
        int n = in.read(buf);
        if (n < 0) {
          to.shutdownOutput(); // pass the FIN on
          return;
        }
        long readAt = System.nanoTime();
        for (int pos = 0; pos < n; ) {
          int allowed;
          long delay;
          synchronized (lock) {
            while (c.stalled && !closed && !from.isClosed()) {
              waitOn(STALL_RECHECK_NANOS);
            }
            if (closed || from.isClosed()) {
              return;
            }
            allowed = c.budget > 0 ? (int) Math.min(c.budget, n - pos) : n - pos;
            delay = c.delayNanos;
          }
          long wait = readAt + delay - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          out.write(buf, pos, allowed);
          out.flush();
          pos += allowed;
          long pause = -1;
          synchronized (lock) {
            c.forwarded += allowed;
            if (c.budget > 0) {
              c.budget -= allowed;
              if (c.budget == 0) {
                c.budget = -1;
                if (c.pauseNanos >= 0) {
                  pause = c.pauseNanos;
                  c.pauseNanos = -1;
                  c.pausing = true;
                } else {
                  c.stalled = true;
                }
              }
            }
            lock.notifyAll();
          }
          if (pause >= 0) {
            // The cut: what was just written leaves alone (TCP_NODELAY), the rest a pause later.
            pauseFor(c, pause, from);
            readAt = System.nanoTime();
          }
        }
      }
    } catch (IOException | InterruptedException e) {
      // The connection was closed or reset, by the test or by an end: nothing left to forward.
      quietClose(from);
      quietClose(to);
    }
  }

  /** Waits {@code nanos}, less when resumed or when the proxy or {@code from} is closed. */
  private void pauseFor(Control c, long nanos, Socket from) {
    long until = System.nanoTime() + nanos;
    synchronized (lock) {
      for (long left = nanos; left > 0 && c.pausing && !closed && !from.isClosed();
          left = until - System.nanoTime()) {
        waitOn(left);
      }
      c.pausing = false;
    }
  }

  /** Waits on {@code lock} (held) for at most {@code nanos}. */
  private void waitOn(long nanos) {
    try {
      lock.wait(Math.max(1, nanos / 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void quietClose(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing is best effort here
    }
  }
}
