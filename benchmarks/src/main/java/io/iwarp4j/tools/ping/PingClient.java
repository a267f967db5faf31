package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.PrintStream;
import java.net.InetSocketAddress;

/**
 * rping's client: per ping it fills the start buffer, advertises it (the server RDMA Reads it),
 * waits for the "go ahead", advertises its RDMA buffer (the server RDMA Writes the data back),
 * waits for the second "go ahead", and compares ({@code -V}) and prints ({@code -v}).
 */
final class PingClient {
  private final PingOptions o;
  private final PrintStream out;
  private final PrintStream err;

  PingClient(PingOptions o, PrintStream out, PrintStream err) {
    this.o = o;
    this.out = out;
    this.err = err;
  }

  /** Runs the pings; returns the number completed. */
  int run(RdmaDevice device) throws Exception {
    ProtectionDomain pd = device.allocateProtectionDomain();
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
        done = pings(ep);
      } finally {
        IwarpPing.await(conn.disconnect(), o.timeout, "disconnect");
      }
      return done;
    }
  }

  private int pings(PingEndpoint ep) throws Exception {
    int size = o.size;
    ByteBuf start = ep.startBuf.buffer();
    ByteBuf sink = ep.rdmaBuf.buffer();
    int ping = 0;
    for (; o.count == 0 || ping < o.count; ping++) {
      PingData.fill(start, 0, size, ping);
      ep.advertise(ep.startBuf, size);
      awaitGoAhead(ep, "the server's go ahead after its RDMA Read (ping " + ping + ")");
      ep.advertise(ep.rdmaBuf, size);
      awaitGoAhead(ep, "the server's go ahead after its RDMA Write (ping " + ping + ")");
      if (o.validate && !ByteBufUtil.equals(start, 0, sink, 0, size)) {
        throw new PingException("data mismatch! (ping " + ping + ")");
      }
      if (o.verbose) {
        out.println("ping data: " + PingData.text(sink, 0, size));
      }
    }
    return ping;
  }

  private static void awaitGoAhead(PingEndpoint ep, String what) throws Exception {
    WorkCompletion wc;
    try {
      wc = ep.completions.next(WcOpcode.RECV, what);
    } catch (PingCompletions.Flushed f) {
      throw new PingException("the connection closed while waiting for " + what);
    }
    if (wc.byteLen() != RpingAdvertisement.LENGTH) {
      throw new PingException("Received bogus data, size " + wc.byteLen());
    }
    ep.postRecv();
  }
}
