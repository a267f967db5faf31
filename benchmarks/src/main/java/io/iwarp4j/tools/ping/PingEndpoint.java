package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventListener;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.PrintStream;

/**
 * One rping endpoint's verbs resources, as rping sets them up: a CQ, an RC queue pair (16 send
 * and 2 receive work requests, one SGE), the 16-octet receive and send buffers, the RDMA buffer
 * ({@code rdma_buf}: the server's Read sink and Write source, the client's Write sink) and, on
 * the client, the start buffer the server reads. Also the connection event listener that prints
 * rping's DISCONNECT line.
 */
final class PingEndpoint implements AutoCloseable {
  static final long RECV_WR_ID = 1;
  static final long SEND_WR_ID = 2;
  static final long RDMA_WR_ID = 3;
  private static final int REMOTE = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
      | AccessFlags.REMOTE_WRITE;

  final CompletionQueue cq;
  final QueuePair qp;
  final MemoryRegion recvBuf;
  final MemoryRegion sendBuf;
  final MemoryRegion rdmaBuf;
  final MemoryRegion startBuf;
  final PingCompletions completions;
  final ConnectionEventListener events;
  private final RecvWorkRequest recvWr = new RecvWorkRequest(1);
  private final SendWorkRequest sendWr = new SendWorkRequest(1);
  private final SendWorkRequest rdmaWr = new SendWorkRequest(1);
  private volatile boolean disconnected;
  private volatile TerminateInfo terminate;

  PingEndpoint(RdmaDevice device, ProtectionDomain pd, PingOptions o, int rdmaSize,
      boolean client, PrintStream err) {
    cq = device.createCompletionQueue(32);
    QueuePair q = null;
    MemoryRegion r = null;
    MemoryRegion s = null;
    MemoryRegion d = null;
    MemoryRegion st = null;
    try {
      q = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).maxSendWr(16).maxRecvWr(2)
          .maxSendSge(1).maxRecvSge(1).build());
      r = pd.allocate(RpingAdvertisement.LENGTH, AccessFlags.LOCAL_WRITE);
      s = pd.allocate(RpingAdvertisement.LENGTH, AccessFlags.LOCAL_WRITE);
      d = pd.allocate(rdmaSize, REMOTE);
      st = client ? pd.allocate(rdmaSize, REMOTE) : null;
    } catch (RuntimeException e) {
      for (AutoCloseable c : new AutoCloseable[] {st, d, s, r, q, cq}) {
        closeQuietly(c);
      }
      throw e;
    }
    qp = q;
    recvBuf = r;
    sendBuf = s;
    rdmaBuf = d;
    startBuf = st;
    sendBuf.buffer().setZero(0, RpingAdvertisement.LENGTH);
    completions = new PingCompletions(cq, o.timeout);
    recvWr.wrId(RECV_WR_ID).addSge(recvBuf, 0, RpingAdvertisement.LENGTH);
    sendWr.wrId(SEND_WR_ID).opcode(WorkRequestOpcode.SEND).flags(SendFlags.SIGNALED)
        .addSge(sendBuf, 0, RpingAdvertisement.LENGTH);
    String side = client ? "client" : "server";
    events = (ConnectionEvent e) -> {
      if (e.type() == ConnectionEventType.DISCONNECTED) {
        disconnected = true;
        err.println(side + " DISCONNECT EVENT...");
      } else if (e.type() == ConnectionEventType.ERROR) {
        if (e.terminate() != null) {
          terminate = e.terminate();
        }
        if (o.debug) {
          // The reason of a Terminate event is the Terminate itself: print it once.
          err.println(side + " connection error: " + (e.terminate() != null ? e.terminate()
              : e.reason()));
        }
      }
    };
  }

  boolean disconnected() {
    return disconnected;
  }

  /** The Terminate that moved the connection to ERROR, if one did. */
  TerminateInfo terminate() {
    return terminate;
  }

  void postRecv() {
    qp.postRecv(recvWr);
  }

  /** Sends the 16 octets now in {@link #sendBuf}. */
  void postSend() {
    qp.postSend(sendWr);
  }

  /** An advertisement of {@code region}'s first {@code size} octets, sent as rping does. */
  void advertise(MemoryRegion region, int size) {
    RpingAdvertisement.encode(sendBuf.buffer(), 0, region.address(), region.stag(), size);
    postSend();
  }

  void postRdma(WorkRequestOpcode op, int rkey, long addr, int length) {
    rdmaWr.reset().wrId(RDMA_WR_ID).opcode(op).flags(SendFlags.SIGNALED).remote(rkey, addr)
        .addSge(rdmaBuf, 0, length);
    qp.postSend(rdmaWr);
  }

  @Override
  public void close() {
    for (AutoCloseable c : new AutoCloseable[] {qp, startBuf, rdmaBuf, sendBuf, recvBuf, cq}) {
      closeQuietly(c);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      // Closing after a failure: the first error is the one reported.
    }
  }
}
