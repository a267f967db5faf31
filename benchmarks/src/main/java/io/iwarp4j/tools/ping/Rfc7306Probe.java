package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * {@code --probe-rfc7306}: sends one RFC 7306 operation (a FetchAdd at STag 0, or an Immediate
 * Data message) to a peer that does not implement RFC 7306, such as Linux siw, and checks that
 * it fails cleanly: the peer answers with a Terminate, the connection goes to ERROR, the posted
 * receive is flushed and the connection closes. A FetchAdd, which waits for a response, itself
 * completes with the error (the Terminate in its vendor error); an Immediate Data message
 * completes locally like a Send, once handed to TCP, before the peer can object. Any other
 * outcome (a FetchAdd that succeeds, no Terminate, something that never completes) fails.
 */
final class Rfc7306Probe {
  private final PingOptions o;
  private final PrintStream out;

  Rfc7306Probe(PingOptions o, PrintStream out) {
    this.o = o;
    this.out = out;
  }

  int run(PingEndpoint ep, RdmaConnection conn) throws Exception {
    boolean atomic = o.probe7306.equals("fetch-add");
    SendWorkRequest wr = new SendWorkRequest(1).wrId(PingEndpoint.RDMA_WR_ID)
        .flags(SendFlags.SIGNALED);
    try (MemoryRegion result = ep.qp.pd().allocate(8, AccessFlags.LOCAL_WRITE)) {
      if (atomic) {
        wr.opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).remote(0, 0).addData(1)
            .localResult(result, 0);
      } else {
        wr.opcode(WorkRequestOpcode.IMMEDIATE_DATA).immData(0x1122334455667788L);
      }
      ep.qp.postSend(wr);
      WorkCompletion[] wc = {new WorkCompletion()};
      boolean opDone = false;
      boolean recvFlushed = false;
      long deadline = System.nanoTime() + o.timeout.toNanos();
      while (!(opDone && recvFlushed)) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || ep.cq.await(wc, left, TimeUnit.NANOSECONDS) == 0) {
          throw new PingException("rfc7306 probe: " + (opDone ? "the receive was not flushed"
              : "the " + o.probe7306 + " never completed") + " within "
              + o.timeout.toSeconds() + " s");
        }
        WorkCompletion c = wc[0];
        if (c.wrId() == PingEndpoint.RDMA_WR_ID) {
          opDone = true;
          out.println("rfc7306 probe: " + o.probe7306 + " completed with " + c.status()
              + ", vendor error 0x" + Integer.toHexString(c.vendorError())
              + (c.vendorError() != 0 ? " (Terminate layer " + (c.vendorError() >>> 16)
              + ", type " + (c.vendorError() >>> 8 & 0xff) + ", code 0x"
              + Integer.toHexString(c.vendorError() & 0xff) + ")" : ""));
          if (c.isSuccess() && atomic) {
            throw new PingException("rfc7306 probe: the peer answered the fetch-add; it speaks"
                + " RFC 7306");
          }
        } else if (c.wrId() == PingEndpoint.RECV_WR_ID && c.opcode() != WcOpcode.SEND) {
          if (c.status() != WcStatus.WR_FLUSH_ERR) {
            throw new PingException("rfc7306 probe: the receive completed with " + c.status());
          }
          recvFlushed = true;
          out.println("rfc7306 probe: the posted receive was flushed (" + c.status() + ")");
        }
      }
    }
    IwarpPing.await(conn.closeFuture(), o.timeout, "rfc7306 probe: the connection's close");
    TerminateInfo t = ep.terminate();
    if (t == null || !t.receivedFromPeer()) {
      throw new PingException("rfc7306 probe: the connection ended without a Terminate from the"
          + " peer" + (t != null ? " (this end sent " + t + ")" : ""));
    }
    out.println("rfc7306 probe: the peer's Terminate: layer " + t.layer() + ", type "
        + t.errorType() + ", code 0x" + Integer.toHexString(t.errorCode()) + " (" + t.describe()
        + ")");
    if (t.siwReading() != null) {
      out.println("rfc7306 probe: as Linux siw means it (Layer and Error Type nibbles swapped): "
          + t.siwReading());
    }
    out.println("rfc7306 probe: connection closed, queue pair " + ep.qp.state());
    return 1;
  }
}
