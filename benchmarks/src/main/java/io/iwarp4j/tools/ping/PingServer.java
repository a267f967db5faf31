package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;

/**
 * rping's server: for each advertisement of the client's start buffer it RDMA Reads it, sends a
 * "go ahead", waits for the advertisement of the client's sink buffer, RDMA Writes the string
 * back (strlen + 1 octets) and sends another "go ahead", until the client disconnects. With
 * {@code -P} it serves connections until interrupted, each on its own thread as rping does.
 */
final class PingServer {
  /** Connection requests wait here for the main thread; more are rejected. */
  private static final int BACKLOG = 16;
  /** -P: connections served at once; more are rejected. */
  static final int MAX_CONNECTIONS = 256;

  private final PingOptions o;
  private final PrintStream out;
  private final PrintStream err;
  private final BlockingQueue<ConnectRequest> requests = new ArrayBlockingQueue<>(BACKLOG);

  PingServer(PingOptions o, PrintStream out, PrintStream err) {
    this.o = o;
    this.out = out;
    this.err = err;
  }

  /**
   * Listens, then serves one connection (or, with -P, connections until interrupted).
   *
   * @param onListening told the bound address once the listener is up
   * @return the number of pings served on the last connection
   */
  int run(RdmaDevice device, Consumer<InetSocketAddress> onListening) throws Exception {
    ProtectionDomain pd = device.allocateProtectionDomain();
    RdmaListener listener = device.listen(new InetSocketAddress(o.address, o.port), req -> {
      if (!requests.offer(req)) {
        req.reject(new byte[0]);
      }
    });
    try {
      onListening.accept(listener.localAddress());
      if (!o.persistent) {
        return serve(device, pd, requests.take());
      }
      // -P, as rdma-core's rping -P: each connection on its own thread, so a client that goes
      // silent holds up nobody but itself (for --timeout).
      java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(MAX_CONNECTIONS);
      while (true) {
        ConnectRequest req = requests.take();
        if (!slots.tryAcquire()) {
          err.println("iwarp-ping: " + MAX_CONNECTIONS + " connections in service; rejecting "
              + req.remoteAddress());
          req.reject(new byte[0]);
          continue;
        }
        Thread t = new Thread(() -> {
          try {
            serve(device, pd, req);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (Exception e) {
            err.println("iwarp-ping: " + (e instanceof PingException ? e.getMessage()
                : e.toString()));
          } finally {
            slots.release();
          }
        }, "iwarp-ping-" + req.remoteAddress());
        t.setDaemon(true);
        t.start();
      }
    } finally {
      listener.close();
    }
  }

  private int serve(RdmaDevice device, ProtectionDomain pd, ConnectRequest req)
      throws Exception {
    if (o.debug) {
      err.println("connect request from " + req.remoteAddress() + ", peer IRD/ORD "
          + req.peerIrd() + "/" + req.peerOrd() + (req.peerToPeer() ? ", peer-to-peer" : ""));
    }
    if (o.streamAfterRtr > 0) {
      return stream(device, pd, req);
    }
    try (PingEndpoint ep = new PingEndpoint(device, pd, o, PingData.MAX_SIZE + 1, false, err)) {
      ep.postRecv();
      RdmaConnection conn = IwarpPing.await(req.accept(ep.qp,
          AcceptParams.builder().eventListener(ep.events).build()), o.timeout,
          "the connection from " + req.remoteAddress());
      try {
        return pings(ep);
      } finally {
        if (conn.isOpen()) {
          IwarpPing.await(conn.disconnect(), o.timeout, "disconnect");
        }
      }
    } catch (PingException e) {
      if (!o.persistent) {
        throw e;
      }
      err.println("iwarp-ping: " + e.getMessage());
      return 0;
    }
  }

  /**
   * --stream-after-rtr: N receives posted before the accept, N Sends the moment the connection
   * is established (after the client's RTR in peer-to-peer mode), then the client's disconnect.
   */
  private int stream(RdmaDevice device, ProtectionDomain pd, ConnectRequest req)
      throws Exception {
    try (PingStream st = new PingStream(device, pd, o, err, "server")) {
      st.postReceives();
      RdmaConnection conn = IwarpPing.await(req.accept(st.qp,
          AcceptParams.builder().eventListener(st.events).build()), o.timeout,
          "the connection from " + req.remoteAddress());
      try {
        st.stream();
        out.println(st.await());
        // The client disconnects once it has both ways, as rping's client does.
        IwarpPing.await(conn.closeFuture(), o.timeout, "the client's disconnect");
      } finally {
        if (conn.isOpen()) {
          IwarpPing.await(conn.disconnect(), o.timeout, "disconnect");
        }
      }
      return 1;
    } catch (PingException e) {
      if (!o.persistent) {
        throw e;
      }
      err.println("iwarp-ping: " + e.getMessage());
      return 0;
    }
  }

  private int pings(PingEndpoint ep) throws Exception {
    ByteBuf recv = ep.recvBuf.buffer();
    ByteBuf data = ep.rdmaBuf.buffer();
    int served = 0;
    try {
      while (true) {
        awaitAdvertisement(ep, "the client's start buffer advertisement");
        int rkey = RpingAdvertisement.rkey(recv, 0);
        long addr = RpingAdvertisement.addr(recv, 0);
        int len = checkedLength(RpingAdvertisement.size(recv, 0));
        ep.postRecv();
        ep.postRdma(WorkRequestOpcode.RDMA_READ, rkey, addr, len);
        ep.completions.next(WcOpcode.RDMA_READ, "the RDMA Read of the start buffer");
        if (o.verbose) {
          out.println("server ping data: " + PingData.text(data, 0, len));
        }
        ep.postSend();
        awaitAdvertisement(ep, "the client's sink buffer advertisement");
        rkey = RpingAdvertisement.rkey(recv, 0);
        addr = RpingAdvertisement.addr(recv, 0);
        long sinkLen = RpingAdvertisement.size(recv, 0);
        ep.postRecv();
        int echo = (int) Math.min(PingData.cLength(data, 0, len) + 1L, Math.min(len, sinkLen));
        ep.postRdma(WorkRequestOpcode.RDMA_WRITE, rkey, addr, echo);
        ep.completions.next(WcOpcode.RDMA_WRITE, "the RDMA Write of the echo");
        ep.postSend();
        served++;
      }
    } catch (PingCompletions.Flushed f) {
      // The client disconnected: the end of a good run, as in rping.
      return served;
    }
  }

  private void awaitAdvertisement(PingEndpoint ep, String what) throws Exception {
    WorkCompletion wc = ep.completions.next(WcOpcode.RECV, what);
    if (wc.byteLen() != RpingAdvertisement.LENGTH) {
      throw new PingException("Received bogus data, size " + wc.byteLen());
    }
  }

  private static int checkedLength(long advertised) throws PingException {
    if (advertised < 1 || advertised > PingData.MAX_SIZE) {
      throw new PingException("the client advertised " + advertised + " octets; rping sizes are "
          + PingData.MIN_SIZE + ".." + PingData.MAX_SIZE);
    }
    return (int) advertised;
  }
}
