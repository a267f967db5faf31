package io.iwarp4j.tools.ping;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * {@code --probe-rfc7306}: sends one RFC 7306 operation (a FetchAdd at STag 0, or an Immediate
 * Data message) to a peer that does not implement RFC 7306, such as Linux siw, and checks that
 * it fails cleanly: the operation completes with an error status (the peer's Terminate in its
 * vendor error), the posted receive is flushed, and the connection ends. Succeeds (returns 1)
 * only on that outcome; an operation that succeeds or never completes is a failure.
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
          if (c.isSuccess()) {
            throw new PingException("rfc7306 probe: the peer accepted " + o.probe7306
                + "; it speaks RFC 7306");
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
    out.println("rfc7306 probe: connection closed, queue pair " + ep.qp.state());
    return 1;
  }
}
