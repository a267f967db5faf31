package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.CountersSnapshot;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmapMessageType;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * rping's client: per ping it fills the start buffer, advertises it (the server RDMA Reads it),
 * waits for the "go ahead", advertises its RDMA buffer (the server RDMA Writes the data back),
 * waits for the second "go ahead", and compares ({@code -V}) and prints ({@code -v}).
 */
final class PingClient {
  private final PingOptions o;
  private final PrintStream out;
  private final PrintStream err;
  private final CountersSnapshot counters = new CountersSnapshot();

  PingClient(PingOptions o, PrintStream out, PrintStream err) {
    this.o = o;
    this.out = out;
    this.err = err;
  }

  /** Runs the pings; returns the number completed. */
  int run(RdmaDevice device) throws Exception {
    ProtectionDomain pd = device.allocateProtectionDomain();
    if (o.streamAfterRtr > 0) {
      return stream(device, pd);
    }
    try (PingEndpoint ep = new PingEndpoint(device, pd, o, o.size, true, err)) {
      ep.postRecv();
      ConnectParams.Builder cp = ConnectParams.builder().ird(1).ord(1).crc(o.crc)
          .markers(o.markers).firstFpduDelay(o.firstFpduDelay).eventListener(ep.events);
      if (o.p2p != null) {
        cp.peerToPeer(true).rtrTypes(o.p2p);
      }
      InetSocketAddress remote = new InetSocketAddress(o.address, o.port);
      RdmaConnection conn = IwarpPing.await(device.connect(ep.qp, remote, cp.build()),
          o.timeout, "connect to " + remote);
      if (o.debug) {
        err.println("rdma_connect successful: " + conn.mpaInfo());
      }
      if (o.probe7306 != null) {
        return new Rfc7306Probe(o, out).run(ep, conn);
      }
      int done = 0;
      try {
        done = pings(ep, conn);
      } finally {
        IwarpPing.await(conn.disconnect(), o.timeout, "disconnect");
      }
      return done;
    }
  }

  /** --stream-after-rtr: N receives posted, connect, N Sends at once, wait for both ways. */
  private int stream(RdmaDevice device, ProtectionDomain pd) throws Exception {
    try (PingStream st = new PingStream(device, pd, o, err, "client")) {
      st.postReceives();
      ConnectParams.Builder cp = ConnectParams.builder().ird(1).ord(1).crc(o.crc)
          .markers(o.markers).firstFpduDelay(o.firstFpduDelay).eventListener(st.events)
          .peerToPeer(true).rtrTypes(o.p2p);
      InetSocketAddress remote = new InetSocketAddress(o.address, o.port);
      RdmaConnection conn = IwarpPing.await(device.connect(st.qp, remote, cp.build()),
          o.timeout, "connect to " + remote);
      if (o.debug) {
        err.println("rdma_connect successful: " + conn.mpaInfo());
      }
      try {
        st.stream();
        out.println(st.await());
      } finally {
        if (conn.isOpen()) {
          IwarpPing.await(conn.disconnect(), o.timeout, "disconnect");
        }
      }
      return 1;
    }
  }

  private int pings(PingEndpoint ep, RdmaConnection conn) throws Exception {
    int size = o.size;
    ByteBuf start = ep.startBuf.buffer();
    ByteBuf sink = ep.rdmaBuf.buffer();
    int ping = 0;
    for (; o.count == 0 || ping < o.count; ping++) {
      PingData.fill(start, 0, size, ping);
      ep.advertise(ep.startBuf, size);
      awaitGoAhead(ep, conn, PingStall.Step.READ, ping);
      ep.advertise(ep.rdmaBuf, size);
      awaitGoAhead(ep, conn, PingStall.Step.WRITE, ping);
      if (o.validate && !ByteBufUtil.equals(start, 0, sink, 0, size)) {
        throw new PingException("data mismatch! (ping " + ping + ")");
      }
      if (o.verbose) {
        out.println("ping data: " + PingData.text(sink, 0, size));
      }
    }
    return ping;
  }

  private void awaitGoAhead(PingEndpoint ep, RdmaConnection conn, PingStall.Step step, int ping)
      throws Exception {
    String what = PingStall.awaited(step, ping);
    RdmapMessageType rdma = step == PingStall.Step.READ ? RdmapMessageType.RDMA_READ_REQUEST
        : RdmapMessageType.RDMA_WRITE;
    ep.qp.counters(counters);
    long rdmaBefore = counters.messagesReceived(rdma);
    WorkCompletion wc;
    try {
      wc = ep.completions.next(WcOpcode.RECV, what, () -> {
        ep.qp.counters(counters);
        return PingStall.diagnose(step, conn.mpaInfo().rtr(), conn.rtrAnswered(),
            counters.messagesReceived(), counters.messagesReceived(rdma) - rdmaBefore);
      });
    } catch (PingCompletions.Flushed f) {
      // The flush can be seen before the ERROR event that carries a Terminate: let it land.
      try {
        conn.closeFuture().get(2, TimeUnit.SECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // reported without it
      }
      throw new PingException("the connection closed while waiting for " + what
          + (ep.terminate() != null ? " (" + ep.terminate() + ")" : ""));
    }
    if (wc.byteLen() != RpingAdvertisement.LENGTH) {
      throw new PingException("Received bogus data, size " + wc.byteLen());
    }
    ep.postRecv();
  }
}
